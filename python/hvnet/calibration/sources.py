"""The figures and documents the parameters cite, by a short name (`calibration.md`'s figures, blog posts,
Microsoft's tuning guide, hvnet's own design notes)."""

__all__ = ["BEHAVIOUR", "C1", "C2", "C3", "C9", "FINN", "FINN_10GBE", "SMB_TUNING", "VAN_HOYE"]

C1 = "calibration.md C1 (one live migration at MTU 1500 on a NIC outside any virtual switch, 70 s)"
C2 = "calibration.md C2 (a jumbo-frame migration stream reaches 10 Gbps line rate)"
C3 = "calibration.md C3 (turning C-states off halves the blackout; 55 GB in 54 s at line rate)"
FINN = (
    "Aidan Finn, 'Windows Server 2012 Hyper-V Concurrent Live Migration & NIC Teaming Speed Comparisons' "
    "(aidanfinn.com/?p=12228): one 512 MB VM over TCP/IP on 1 GbE in 7 s, of which the copy at line rate is 4.6 s"
)
FINN_10GBE = (
    "Aidan Finn, the same post (aidanfinn.com/?p=12228): 512 MB VMs over TCP/IP on 10 GbE, 1 in 5 s, 10 at once in "
    "13 s, 20 at once in 21 s (0.8 s more per VM, where the link needs under 0.5 s for each VM's memory)"
)
VAN_HOYE = (
    "Didier Van Hoye, 'High performance live migration done right means using SMB Direct' "
    "(blog.workinghardinit.work, 2015): TCP/IP live migrations over a 2 x 10 GbE LACP team, about 22 % CPU with "
    "both members' RSS at the default (cores 0-7 each), about 12 % with each member on cores of its own"
)
C9 = "calibration.md C9 (ntttcp's cycles/byte inside the receiving VM: 2.9-3.4)"
BEHAVIOUR = "shared/design/BEHAVIOUR.md"
SMB_TUNING = (
    "Microsoft, 'Performance tuning for file servers' (SMB client registry defaults, Windows Server 2012 to 2016)"
)
