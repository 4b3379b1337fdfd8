"""A migration route's SMB channels as the core's specs (`specs.Channel`).

`interfaces.smb_channels` gives every pair of hosts of the same two kinds one
tuple of channels, their NICs named without the hosts' names, channels alike
one object. Here a route's tuple becomes the core's channels: each distinct
channel once, its NICs looked up on the route's two hosts (`NetworkModel.nic_of`)
and its NIC pair's path recorded, or its team interfaces' endpoints named;
channels alike are one spec.
"""

from __future__ import annotations

from hvnet.lower import specs
from hvnet.lower.interfaces import SmbChannel
from hvnet.lower.network import NetworkModel

__all__ = ["ChannelShapes", "channel_specs"]


def channel_specs(
    model: NetworkModel,
    source: str,
    target: str,
    channels: tuple[SmbChannel, ...],
    index: dict[str, int],
    rdma_cost: float,
    shapes: ChannelShapes,
) -> tuple[specs.Channel, ...]:
    """The SMB channels from host `source` to host `target` for the core (each bound to its NIC pair,
    or its team interfaces' endpoints, by `index`), their paths recorded; an RDMA channel costs
    `rdma_cost` cycles per byte at each end. Each distinct channel is made once (`ChannelShapes`)."""
    if not channels:
        return ()
    distinct, order = shapes.of(channels)
    made = []
    for channel in distinct:
        pair = None
        if channel.out_nic is not None and channel.in_nic is not None:
            pair = (model.nic_of(source, channel.out_nic), model.nic_of(target, channel.in_nic))
            model.add_path(*pair)
        cycles = (rdma_cost, rdma_cost) if channel.rdma else None
        endpoints = None
        if channel.via is not None:
            names = (f"{source}/{channel.via[0]}", f"{target}/{channel.via[1]}")
            model.add_paths(*names)
            endpoints = (index[names[0]], index[names[1]])
        made.append(specs.Channel(nics=pair, cycles_per_byte=cycles, endpoints=endpoints))
    return tuple(map(made.__getitem__, order))


class ChannelShapes(dict[int, tuple[tuple[SmbChannel, ...], tuple[int, ...]]]):
    """SMB's channels of a pair of kinds of host (`interfaces.smb_channels`: one tuple, kept by its
    routes, channels alike one object) as its distinct channels and which each channel is; by the
    tuple's `id`, worked out once."""

    def of(self, channels: tuple[SmbChannel, ...]) -> tuple[tuple[SmbChannel, ...], tuple[int, ...]]:
        found = self.get(id(channels))
        if found is None:
            place: dict[int, int] = {}
            distinct: list[SmbChannel] = []
            order = []
            for channel in channels:
                k = place.get(id(channel))
                if k is None:
                    k = place[id(channel)] = len(distinct)
                    distinct.append(channel)
                order.append(k)
            found = self[id(channels)] = (tuple(distinct), tuple(order))
        return found
