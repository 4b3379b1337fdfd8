"""A bad field of a scenario file is one line on the field's own line: ``file:line: field: message``.

Unknown fields, units, sizes, choices, ranges, missing and null values, the
shape a field expects (text, a list, a mapping), and names. The strict types and
bounds the fuzzer asked for (issue 15) are test_errors.py's.
"""

from __future__ import annotations

from tests.model.problems import problems

# --- fields, one at a time ----------------------------------------------------------------------


def test_unknown_field_names_the_allowed_ones_on_the_key_line() -> None:
    assert problems(
        """\
        name: t
        hosts:
          - name: hv1
            nicss: []
            nics:
              - {name: nic1, speed: 10Gbps}
        """
    ) == [
        "cluster.yaml:4: hosts[0].nicss: unknown field; allowed: name, cpu, power_plan, nics, teams, vswitches,"
        " live_migration, memory"
    ]


def test_unknown_top_level_field() -> None:
    assert problems(
        """\
        name: t
        hots: []
        hosts:
          - {name: hv1, nics: [{name: nic1, speed: 10Gbps}]}
        """
    ) == [
        "cluster.yaml:2: hots: unknown field; allowed: name, description, hosts, switches, fabric, cables, vms,"
        " traffic, demand, events, requirements, variants"
    ]


def test_wrong_unit() -> None:
    assert problems(
        """\
        name: t
        hosts:
          - name: hv1
            nics:
              - {name: nic1, speed: 10Gbps}
              - name: nic2
                speed: 10Gbs
        """
    ) == [
        "cluster.yaml:7: hosts[0].nics[1].speed: '10Gbs' is not a bit rate;"
        " write a number and a unit: bps, Kbps, Mbps, Gbps, Tbps (e.g. 10Gbps)"
    ]


def test_bare_number_is_refused() -> None:
    """10 could be bits, bytes, Gbps: a quantity needs a unit."""
    assert problems(
        """\
        name: t
        hosts:
          - name: hv1
            nics:
              - {name: nic1, speed: 10}
        """
    ) == [
        "cluster.yaml:5: hosts[0].nics[0].speed: 10 has no unit;"
        " write a unit: bps, Kbps, Mbps, Gbps, Tbps (e.g. 10Gbps)"
    ]


def test_negative_size() -> None:
    assert problems(
        """\
        name: t
        hosts:
          - {name: hv1, nics: [{name: nic1, speed: 10Gbps}]}
        vms:
          - {name: vm1, host: hv1, memory: -5GB}
        """
    ) == ["cluster.yaml:5: vms[0].memory: '-5GB' is negative; a size cannot be negative"]


def test_zero_size_is_too_small() -> None:
    assert problems(
        """\
        name: t
        hosts:
          - {name: hv1, nics: [{name: nic1, speed: 10Gbps}]}
        vms:
          - {name: vm1, host: hv1, memory: 0GiB}
        """
    ) == ["cluster.yaml:5: vms[0].memory: '0GiB' is too small; must be more than 0"]


def test_bits_are_not_a_size() -> None:
    assert problems(
        """\
        name: t
        hosts:
          - {name: hv1, nics: [{name: nic1, speed: 10Gbps}]}
          - {name: hv2, nics: [{name: nic1, speed: 10Gbps}]}
        traffic:
          - {from: hv1, to: hv2, size: 10Gb}
        """
    ) == [
        "cluster.yaml:6: traffic[0].size: '10Gb' is in bits, not bytes;"
        " write a size in bytes such as 10GB (b is a bit, B a byte)"
    ]


def test_unknown_enum_value_lists_the_choices() -> None:
    assert problems(
        """\
        name: t
        hosts:
          - name: hv1
            power_plan: turbo
            nics: [{name: nic1, speed: 10Gbps}]
        """
    ) == [
        "cluster.yaml:4: hosts[0].power_plan: 'turbo' is not allowed;"
        " choose one of balanced, high_performance, power_saver"
    ]


def test_a_c_state_that_is_not_one_lists_the_idle_states() -> None:
    """ "C-states off" is written as the deepest state left: c1."""
    assert problems(
        """\
        name: t
        hosts:
          - name: hv1
            cpu: {deepest_c_state: off}
            nics: [{name: nic1, speed: 10Gbps}]
        """
    ) == ["cluster.yaml:4: hosts[0].cpu.deepest_c_state: 'off' is not allowed; choose one of c1, c1e, c3, c6"]


def test_number_must_be_positive() -> None:
    assert problems(
        """\
        name: t
        hosts:
          - name: hv1
            cpu: {sockets: 2, ghz: 0}
            nics: [{name: nic1, speed: 10Gbps}]
        """
    ) == ["cluster.yaml:4: hosts[0].cpu.ghz: 0 is too small; must be at least 0.1"]


def test_integer_out_of_range() -> None:
    assert problems(
        """\
        name: t
        hosts:
          - name: hv1
            nics: [{name: nic1, speed: 10Gbps, mtu: 9600, rss_queues: 0}]
        """
    ) == [
        "cluster.yaml:4: hosts[0].nics[0].mtu: 9600 is too large; must be at most 9216",
        "cluster.yaml:4: hosts[0].nics[0].rss_queues: 0 is too small; must be at least 1",
    ]


def test_missing_field_points_at_its_entry() -> None:
    assert problems(
        """\
        name: t
        hosts:
          - name: hv1
            nics:
              - name: nic1
                mtu: 9000
        """
    ) == ["cluster.yaml:5: hosts[0].nics[0].speed: required field is missing"]


def test_null_value_points_at_its_key() -> None:
    """``hosts:`` with nothing after it is null; null has no line of its own."""
    assert problems("name: t\nhosts:\n") == ["cluster.yaml:2: hosts: expected a list, got null"]


def test_a_name_given_as_a_number_needs_quotes() -> None:
    assert problems(
        """\
        name: t
        hosts:
          - {name: 1, nics: [{name: nic1, speed: 10Gbps}]}
        """
    ) == ["cluster.yaml:3: hosts[0].name: expected text, got 1; write it in quotes: '1'"]


def test_a_list_given_as_one_name() -> None:
    assert problems(
        """\
        name: t
        hosts:
          - name: hv1
            nics: [{name: nic1, speed: 10Gbps}]
            teams: [{name: team1, members: nic1}]
        """
    ) == ["cluster.yaml:5: hosts[0].teams[0].members: expected a list, got 'nic1'; write a list: [nic1]"]


def test_a_mapping_expected() -> None:
    assert problems(
        """\
        name: t
        hosts:
          - {name: hv1, cpu: 16, nics: [{name: nic1, speed: 10Gbps}]}
        """
    ) == [
        "cluster.yaml:3: hosts[0].cpu: expected a mapping of fields (sockets, cores_per_socket, ghz, smt,"
        " deepest_c_state), got 16"
    ]


def test_names_cannot_contain_a_slash() -> None:
    assert problems(
        """\
        name: t
        hosts:
          - {name: rack1/hv1, nics: [{name: nic1, speed: 10Gbps}]}
        """
    ) == [
        "cluster.yaml:3: hosts[0].name: 'rack1/hv1' contains '/';"
        " names cannot contain '/' (it separates host/nic and switch/port)"
    ]


def test_no_hosts_and_no_nics() -> None:
    assert problems(
        """\
        name: t
        hosts:
          - {name: hv1, nics: []}
        """
    ) == ["cluster.yaml:3: hosts[0].nics: needs at least 1 entry"]
