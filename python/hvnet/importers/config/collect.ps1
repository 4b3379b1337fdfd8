<#
.SYNOPSIS
    Collects this Hyper-V host's network configuration for hvnet ("hvnet import config").

.DESCRIPTION
    Run it on each host of the cluster, as an administrator, in Windows PowerShell 5.1
    or PowerShell 7:

        powershell.exe -NoProfile -ExecutionPolicy Bypass -File collect.ps1 -OutputDirectory C:\hvnet

    It only reads: every value comes from a Get-* cmdlet or CIM class that Windows Server
    ships (NetAdapter, NetLbfo, Hyper-V, SmbShare, CIM), or from kernel32 (the processor
    groups), and nothing is changed. It writes one JSON document, <hostname>.json (UTF-8),
    into OutputDirectory and prints its path.

    Each section is collected on its own: a cmdlet that is missing (no Hyper-V role, no NIC
    teaming, no SMB bandwidth limit feature) or that fails leaves its section null, and its
    message goes under "Errors"; the rest is still collected. Enumerations are written as
    their (English, culture-independent) names, and lists as JSON arrays, in Windows
    PowerShell 5.1 as in PowerShell 7 (see "Lists" below).

    Copy the files of all hosts to one folder and convert them with
        hvnet import config hv1.json hv2.json ... -o cluster.yaml
    (docs/import.md, "Configuration").

.PARAMETER OutputDirectory
    Where <hostname>.json is written; the current directory by default.
#>
[CmdletBinding()]
param(
    [string]$OutputDirectory = '.'
)

$ErrorActionPreference = 'Stop'
$FormatName = 'hvnet-config-dump'
$FormatVersion = 1
$ScriptVersion = '1.1.0'
$sectionErrors = [ordered]@{}

# Lists. Windows PowerShell 5.1 gives every array an extended Count (an alias of Length, in its
# types.ps1xml), and its ConvertTo-Json writes an array that is wrapped in a PSObject as an object of
# the array and that member: {"value": [...], "Count": n}. Select-Object wraps whatever a calculated
# property's script block returns (ScriptBlock.GetRawResult), so no @(...), ",", or [object[]] inside the
# block helps. Without the type data the array is written as an array (PowerShell/PowerShell#3163,
# #3222); PowerShell 6 and later never had it (#3231). It is removed for this session only; should
# that fail, the message goes under Errors.Lists, and hvnet reads {"value", "Count"} all the same.
if ($PSVersionTable.PSVersion.Major -lt 6) {
    try {
        Remove-TypeData -TypeName System.Array -ErrorAction Stop
    } catch {
        $sectionErrors['Lists'] = 'Remove-TypeData System.Array: ' + $_.Exception.Message
    }
}

function Get-Section {
    # Runs one section: its output as an array (also of one item, or none), or, with -Single,
    # its first object; $null (and the message under Errors) when it fails.
    param([string]$Name, [scriptblock]$Block, [switch]$Single)
    try {
        $items = @(& $Block)
        if ($Single) {
            if ($items.Length -eq 0) { return $null }
            return $items[0]
        }
        return , $items
    } catch {
        $sectionErrors[$Name] = $_.Exception.Message
        return $null
    }
}

function ConvertTo-Name {
    # An enumeration's name ("Lacp"), whatever PowerShell version; $null stays $null.
    param($Value)
    if ($null -eq $Value) { return $null }
    return [string]$Value
}

function ConvertTo-List {
    # A list stays a list in the JSON, even of one item (and an array in 5.1 too: "Lists" above).
    param($Value)
    if ($null -eq $Value) { return $null }
    return , @($Value | ForEach-Object { [string]$_ })
}

$dump = [ordered]@{}
$dump.Header = [ordered]@{
    Format        = $FormatName
    FormatVersion = $FormatVersion
    ScriptVersion = $ScriptVersion
    CollectedAt   = (Get-Date).ToUniversalTime().ToString('yyyy-MM-ddTHH:mm:ssZ', [Globalization.CultureInfo]::InvariantCulture)
    ComputerName  = $env:COMPUTERNAME
    PSVersion     = $PSVersionTable.PSVersion.ToString()
    OSVersion     = [Environment]::OSVersion.Version.ToString()
    Culture       = (Get-Culture).Name
}

# --- network adapters -------------------------------------------------------------------
$dump.NetAdapter = Get-Section 'NetAdapter' {
    Get-NetAdapter | Sort-Object Name | Select-Object Name, InterfaceDescription, DriverDescription, LinkSpeed,
        ReceiveLinkSpeed, TransmitLinkSpeed, MacAddress, @{ n = 'Status'; e = { ConvertTo-Name $_.Status } },
        ifIndex, MtuSize, Virtual, HardwareInterface, DeviceID
}
$dump.NetAdapterJumboPacket = Get-Section 'NetAdapterJumboPacket' {
    Get-NetAdapterAdvancedProperty | Where-Object { $_.RegistryKeyword -eq '*JumboPacket' } | Sort-Object Name |
        Select-Object Name, DisplayName, DisplayValue, RegistryKeyword, @{ n = 'RegistryValue'; e = { ConvertTo-List $_.RegistryValue } }
}
$dump.NetAdapterRss = Get-Section 'NetAdapterRss' {
    Get-NetAdapterRss | Sort-Object Name | Select-Object Name, InterfaceDescription, Enabled, BaseProcessorGroup,
        BaseProcessorNumber, MaxProcessorGroup, MaxProcessorNumber, MaxProcessors, NumberOfReceiveQueues,
        @{ n = 'Profile'; e = { ConvertTo-Name $_.Profile } }
}
$dump.NetAdapterVmq = Get-Section 'NetAdapterVmq' {
    Get-NetAdapterVmq | Sort-Object Name | Select-Object Name, InterfaceDescription, Enabled, BaseProcessorNumber,
        MaxProcessors, NumberOfReceiveQueues
}
$dump.NetAdapterRdma = Get-Section 'NetAdapterRdma' {
    Get-NetAdapterRdma | Sort-Object Name | Select-Object Name, InterfaceDescription, Enabled
}
$dump.NetAdapterRsc = Get-Section 'NetAdapterRsc' {
    Get-NetAdapterRsc | Sort-Object Name | Select-Object Name, IPv4Enabled, IPv6Enabled
}
$dump.NetIPAddress = Get-Section 'NetIPAddress' {
    Get-NetIPAddress | Sort-Object InterfaceAlias, IPAddress | Select-Object InterfaceAlias, IPAddress, PrefixLength,
        @{ n = 'AddressFamily'; e = { ConvertTo-Name $_.AddressFamily } }
}

# --- teams ------------------------------------------------------------------------------
$dump.NetLbfoTeam = Get-Section 'NetLbfoTeam' {
    Get-NetLbfoTeam | Sort-Object Name | Select-Object Name, @{ n = 'Members'; e = { ConvertTo-List $_.Members } },
        @{ n = 'TeamNics'; e = { ConvertTo-List $_.TeamNics } },
        @{ n = 'TeamingMode'; e = { ConvertTo-Name $_.TeamingMode } },
        @{ n = 'LoadBalancingAlgorithm'; e = { ConvertTo-Name $_.LoadBalancingAlgorithm } },
        @{ n = 'Status'; e = { ConvertTo-Name $_.Status } }
}
$dump.NetLbfoTeamMember = Get-Section 'NetLbfoTeamMember' {
    Get-NetLbfoTeamMember | Sort-Object Team, Name | Select-Object Name, Team, InterfaceDescription,
        @{ n = 'AdministrativeMode'; e = { ConvertTo-Name $_.AdministrativeMode } },
        @{ n = 'OperationalStatus'; e = { ConvertTo-Name $_.OperationalStatus } },
        TransmitLinkSpeed, ReceiveLinkSpeed
}

# --- Hyper-V ----------------------------------------------------------------------------
$dump.VMSwitch = Get-Section 'VMSwitch' {
    Get-VMSwitch | Sort-Object Name | Select-Object Name, @{ n = 'Id'; e = { ConvertTo-Name $_.Id } },
        @{ n = 'SwitchType'; e = { ConvertTo-Name $_.SwitchType } }, NetAdapterInterfaceDescription,
        @{ n = 'NetAdapterInterfaceDescriptions'; e = { ConvertTo-List $_.NetAdapterInterfaceDescriptions } },
        EmbeddedTeamingEnabled, AllowManagementOS, IovEnabled,
        @{ n = 'BandwidthReservationMode'; e = { ConvertTo-Name $_.BandwidthReservationMode } }
}
$dump.VMSwitchTeam = Get-Section 'VMSwitchTeam' {
    $set = @(Get-VMSwitch | Where-Object { $_.EmbeddedTeamingEnabled })
    if ($set.Length -gt 0) {
        Get-VMSwitchTeam -VMSwitch $set | Sort-Object Name | Select-Object Name, @{ n = 'Id'; e = { ConvertTo-Name $_.Id } },
            @{ n = 'NetAdapterInterfaceDescription'; e = { ConvertTo-List $_.NetAdapterInterfaceDescription } },
            @{ n = 'TeamingMode'; e = { ConvertTo-Name $_.TeamingMode } },
            @{ n = 'LoadBalancingAlgorithm'; e = { ConvertTo-Name $_.LoadBalancingAlgorithm } }
    }
}
$dump.VMNetworkAdapterManagementOS = Get-Section 'VMNetworkAdapterManagementOS' {
    # DeviceId is the DeviceID of the adapter Get-NetAdapter lists for the vNIC, whatever it is named
    # ("vEthernet (SMB1)", Network ATC's "vSMB(intent#Ethernet 2)", or renamed).
    Get-VMNetworkAdapter -ManagementOS | Sort-Object Name | Select-Object Name, SwitchName, MacAddress, VmqWeight,
        VrssEnabled, IsManagementOs, DeviceId
}
$dump.VM = Get-Section 'VM' {
    Get-VM | Sort-Object Name | Select-Object Name, @{ n = 'State'; e = { ConvertTo-Name $_.State } }, ProcessorCount,
        MemoryAssigned, MemoryStartup, MemoryMaximum, DynamicMemoryEnabled, Generation
}
$dump.VMNetworkAdapter = Get-Section 'VMNetworkAdapter' {
    Get-VM | Get-VMNetworkAdapter | Sort-Object VMName, Name | Select-Object VMName, Name, SwitchName, MacAddress,
        VmqWeight, VrssEnabled, VmmqEnabled, VmmqQueuePairs, IovWeight
}
$dump.VMHost = Get-Section 'VMHost' -Single {
    Get-VMHost | Select-Object ComputerName, LogicalProcessorCount, MemoryCapacity, VirtualMachineMigrationEnabled,
        @{ n = 'VirtualMachineMigrationPerformanceOption'; e = { ConvertTo-Name $_.VirtualMachineMigrationPerformanceOption } },
        MaximumVirtualMachineMigrations, UseAnyNetworkForMigration,
        @{ n = 'VirtualMachineMigrationAuthenticationType'; e = { ConvertTo-Name $_.VirtualMachineMigrationAuthenticationType } }
}
$dump.VMMigrationNetwork = Get-Section 'VMMigrationNetwork' {
    Get-VMMigrationNetwork | Sort-Object Priority, Subnet | Select-Object Subnet, Priority
}

# --- SMB --------------------------------------------------------------------------------
$dump.SmbClientConfiguration = Get-Section 'SmbClientConfiguration' -Single {
    Get-SmbClientConfiguration | Select-Object EnableMultiChannel, ConnectionCountPerRssNetworkInterface,
        ConnectionCountPerRdmaNetworkInterface, ConnectionCountPerNetworkInterface, MaximumConnectionCountPerServer,
        EnableBandwidthThrottling
}
$dump.SmbBandwidthLimit = Get-Section 'SmbBandwidthLimit' {
    Get-SmbBandwidthLimit | Select-Object @{ n = 'Category'; e = { ConvertTo-Name $_.Category } }, BytesPerSecond
}

# --- power plan and processors ----------------------------------------------------------
$dump.PowerPlan = Get-Section 'PowerPlan' -Single {
    $plan = $null
    try {
        $plan = Get-CimInstance -Namespace 'root\cimv2\power' -ClassName Win32_PowerPlan -Filter 'IsActive = TRUE' |
            Select-Object -First 1
    } catch { }
    $scheme = $null
    try { $scheme = (& powercfg.exe /getactivescheme | Out-String).Trim() } catch { }
    if ($null -eq $plan -and -not $scheme) { throw 'neither Win32_PowerPlan nor powercfg /getactivescheme answered' }
    [ordered]@{
        ElementName  = $(if ($plan) { $plan.ElementName } else { $null })
        InstanceID   = $(if ($plan) { $plan.InstanceID } else { $null })
        ActiveScheme = $scheme
    }
}
$dump.Processor = Get-Section 'Processor' {
    Get-CimInstance -ClassName Win32_Processor | Sort-Object DeviceID | Select-Object DeviceID, Name, SocketDesignation,
        NumberOfCores, NumberOfLogicalProcessors, MaxClockSpeed
}
$dump.ProcessorGroup = Get-Section 'ProcessorGroup' {
    # Get-NetAdapterRss numbers processors within a processor group (BaseProcessorGroup:BaseProcessorNumber);
    # Windows forms the groups at boot, up to 64 logical processors each (Microsoft Learn, "Processor
    # Groups"). kernel32 says how many each group has; Add-Type declares its two functions (compiling
    # the declaration in the temporary folder, as Add-Type does).
    if (-not ('HvnetCollect.ProcessorGroups' -as [type])) {
        Add-Type -Namespace HvnetCollect -Name ProcessorGroups -MemberDefinition @'
[DllImport("kernel32.dll")] public static extern ushort GetActiveProcessorGroupCount();
[DllImport("kernel32.dll")] public static extern uint GetActiveProcessorCount(ushort GroupNumber);
'@
    }
    $count = [int][HvnetCollect.ProcessorGroups]::GetActiveProcessorGroupCount()
    for ($group = 0; $group -lt $count; $group++) {
        [ordered]@{
            Group             = $group
            LogicalProcessors = [int][HvnetCollect.ProcessorGroups]::GetActiveProcessorCount([uint16]$group)
        }
    }
}

$dump.Errors = $sectionErrors

$directory = (Resolve-Path -LiteralPath $OutputDirectory).ProviderPath
$path = Join-Path $directory ($env:COMPUTERNAME + '.json')
$json = $dump | ConvertTo-Json -Depth 6
[IO.File]::WriteAllText($path, $json, (New-Object Text.UTF8Encoding($false)))
Write-Output $path
