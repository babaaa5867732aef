"""Extract: a dilute system against the Kremser equation, and the material balance."""

from __future__ import annotations

import numpy as np
import pytest

from simulator_mock import run_config
from simulator_mock.examples import extractor
from simulator_mock.properties.property_package import get_property_package

WATER, BENZENE, ACETONE = "7732-18-5", "71-43-2", "67-64-1"


def _distribution() -> tuple[float, float, float]:
    """(K' = solute per benzene in the benzene liquid / solute per water in the water liquid, water in the
    water liquid, benzene in the benzene liquid) of one dilute equilibrium stage at 25 C [mole ratios]."""
    package = get_property_package((WATER, BENZENE, ACETONE), "NRTL")
    zs = np.array([99.0, 30.0, 0.001])
    _, _, liquids = package.flash_phases(zs / zs.sum(), "test", liquid_only=True, T=298.15, P=101325.0)
    aqueous, organic = sorted(liquids, key=lambda p: -p.zs[0])
    X = aqueous.zs[2] / aqueous.zs[0]
    Y = organic.zs[2] / organic.zs[1]
    return Y / X, aqueous.zs[0], organic.zs[1]


@pytest.mark.parametrize("stages", [1, 3])
def test_dilute_extraction_follows_kremser(stages: int) -> None:
    # Kremser (1930) for a solute-free solvent: unextracted fraction = (E - 1) / (E^(N+1) - 1),
    # E = K' S / F on a solute-free basis (F, S: water and benzene flows; K' is constant when dilute).
    K, _, _ = _distribution()
    E = K * 30.0 / 99.0
    expected = (E - 1.0) / (E ** (stages + 1) - 1.0)
    result = run_config(extractor(stages, acetone=0.01))  # 1e-4 of the feed: K' is constant
    raffinate = result["streams"]["RAF-1"]["component_flows_kmol_hr"]
    extract = result["streams"]["EXT-1"]["component_flows_kmol_hr"]
    assert raffinate["ACETONE"] / 0.01 == pytest.approx(expected, rel=0.003)
    # material balance by component (feed: 99 water + 0.01 acetone, solvent: 30 benzene)
    for cid, fed in (("WATER", 99.0), ("BENZENE", 30.0), ("ACETONE", 0.01)):
        assert raffinate[cid] + extract[cid] == pytest.approx(fed, rel=1e-8)
    assert result["balances"]["mass_relative_error"] < 1e-8
    # the water leaves mostly in the raffinate, the benzene in the extract
    assert raffinate["WATER"] > 0.99 * 99.0 and extract["BENZENE"] > 0.99 * 30.0
    block = result["blocks"]["X1"]
    assert block["stages"] == stages and block["top_temperature_C"] == pytest.approx(25.0)


def test_more_stages_extract_more() -> None:
    left = [
        run_config(extractor(n))["streams"]["RAF-1"]["component_flows_kmol_hr"]["ACETONE"] for n in (1, 2)
    ]
    assert left[1] < left[0]
