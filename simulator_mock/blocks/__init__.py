"""Unit-operation models, one module per block family; ``BLOCK_CLASSES`` maps Aspen type names to them."""

from __future__ import annotations

from simulator_mock.blocks.base import Block, BlockContext
from simulator_mock.blocks.dstwu import DSTWU
from simulator_mock.blocks.heater import Heater
from simulator_mock.blocks.heatx import HeatX
from simulator_mock.blocks.mixers import FSplit, Mixer
from simulator_mock.blocks.pressure_changers import Compr, Pump, Valve
from simulator_mock.blocks.radfrac import RadFrac
from simulator_mock.blocks.rcstr import RCSTR
from simulator_mock.blocks.rplug import RPlug
from simulator_mock.blocks.rstoic import RStoic
from simulator_mock.blocks.separators import Flash2, Sep

BLOCK_CLASSES: dict[str, type[Block]] = {
    cls.type_name: cls
    for cls in (
        Mixer,
        FSplit,
        Heater,
        Pump,
        Valve,
        Compr,
        Flash2,
        Sep,
        HeatX,
        RStoic,
        RPlug,
        RCSTR,
        DSTWU,
        RadFrac,
    )
}

__all__ = ["BLOCK_CLASSES", "Block", "BlockContext"]
