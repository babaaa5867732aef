"""Opt-in kinetic family: an isothermal, liquid-filled RCSTR with a POWERLAW reaction set.

Not in :data:`~aspen_rl.datagen.build.SHIPPED_FAMILIES`: ``data/generated/`` does not draw it.
The mock's POWERLAW rates are elementary (each reactant's exponent is its coefficient), so both systems are
written as elementary A + H2O -> B, first order in each reactant, with water in excess.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace
from typing import Any

from aspen_rl.datagen.components import COMPONENTS
from aspen_rl.datagen.drafts import (
    Draft,
    UnitStyle,
    block_ref,
    component_flow_feed,
    component_flow_target,
    draft,
    duty_target,
    family,
    num,
    tr,
)
from aspen_rl.tasks.model import Difficulty
from simulator_mock.flowsheet.builders import Block


@dataclass(frozen=True)
class LiquidReaction:
    """An elementary liquid-phase hydration oxide + H2O -> glycol and the conditions it is drawn at."""

    name_en: str
    name_zh: str
    equation: str
    oxide: str
    glycol: str
    pre_exp: float
    """k in m3/(kmol s) (SI, as Aspen requires)."""
    act_energy_cal: float | None
    """Activation energy in cal/mol; None: k does not depend on temperature."""
    temperatures: tuple[int, ...]
    pressures: tuple[float, ...]


REACTIONS = (
    # the shipped train-medium-05 / train-hard-04 kinetics (uncatalysed EO hydration, water in excess)
    LiquidReaction(
        "ethylene glycol",
        "乙二醇",
        "EO + H2O -> EG",
        "EO",
        "EG",
        1.04e-4,
        None,
        (40, 45, 50, 55, 60),
        (2.0, 3.0, 4.0, 5.0),
    ),
    # Fogler's propylene-glycol CSTR: k = 16.96e12 exp(-32400 Btu/lbmol / RT) 1/h, pseudo-first order in
    # PO; divided by the water molarity of that feed (~39 kmol/m3) for the elementary second-order form
    LiquidReaction(
        "propylene glycol",
        "丙二醇",
        "PO + H2O -> PG",
        "PO",
        "PG",
        1.2e8,
        18012.0,
        (25, 30, 35, 40, 45, 50, 55, 60),
        (3.0, 4.0, 5.0, 6.0),
    ),
)


def sci(value: float) -> str:
    """1.04e-4 -> '1.04e-4', 1.2e8 -> '1.2e8'."""
    mantissa, exponent = f"{value:e}".split("e")
    return f"{float(mantissa):g}e{int(exponent)}"


def _energy(cal_mol: float, rng: random.Random) -> tuple[str, dict[str, Any]]:
    """(text, ACT_ENERGY_* fields): written in cal/mol, Btu/lbmol or kJ/mol (stated to Aspen in cal/mol)."""
    unit = rng.choice(["cal/mol", "Btu/lbmol", "kJ/mol"])
    if unit == "Btu/lbmol":
        shown = round(cal_mol * 1.8)
        return f"{shown} Btu/lbmol", {"ACT_ENERGY_VALUE": float(shown), "ACT_ENERGY_UNITS": "Btu/lbmol"}
    if unit == "kJ/mol":
        shown_kj = round(cal_mol * 4.184 / 1000, 2)
        value = round(shown_kj * 1000 / 4.184, 1)
        return f"{num(shown_kj)} kJ/mol", {"ACT_ENERGY_VALUE": value, "ACT_ENERGY_UNITS": "cal/mol"}
    return f"{num(cal_mol)} cal/mol", {"ACT_ENERGY_VALUE": cal_mol, "ACT_ENERGY_UNITS": "cal/mol"}


@family("cstr", Difficulty.MEDIUM, "one isothermal liquid RCSTR of a given volume, POWERLAW oxide hydration")
def cstr(rng: random.Random, lang: str) -> Draft:
    style = UnitStyle.draw(rng)
    reaction = rng.choice(REACTIONS)
    oxide, glycol = COMPONENTS[reaction.oxide], COMPONENTS[reaction.glycol]
    oxide_flow = float(rng.choice(range(10, 45, 5)))
    ratio = rng.choice([8, 10, 12, 15, 20])
    flows = {reaction.oxide: oxide_flow, "WATER": oxide_flow * ratio}
    cids = [reaction.oxide, "WATER", reaction.glycol]
    t_r = float(rng.choice(reaction.temperatures))
    t_feed = float(rng.choice([20.0, 25.0, t_r]))
    p = rng.choice(reaction.pressures)
    volume = rng.choice([0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 5.0, 6.0, 8.0])
    block = rng.choice(["R1", "CSTR1", "RX1"])
    feed, product = rng.choice([("FEED-1", "PRO-1"), ("F-1", "P-1"), ("S-1", "S-2"), ("IN-1", "OUT-1")])
    rset = rng.choice(["R-1", "RXN-1", f"{glycol.cid}-RXN"])
    feed_text, feed_data = component_flow_feed(flows, t_feed, p, style, lang)
    t_text, temp = style.temperature_of(t_r)
    p_text, pres = style.pressure_of(p)
    item: dict[str, Any] = {
        "REAC_ID": "1",
        "REACTYPE": "KINETIC",
        "COEF_DATA": {reaction.oxide: -1, "WATER": -1},
        "COEF1_DATA": {reaction.glycol: 1},
        "PHASE": "L",
        "R_D_RBASIS": "REAC-VOL",
        "PRE_EXP": reaction.pre_exp,
        "T_EXP": 0,
    }
    if reaction.act_energy_cal is None:
        energy_en, energy_zh = "temperature independent (no activation energy)", "与温度无关（无活化能）"
        energy_unit = ""
    else:
        e_text, e_fields = _energy(reaction.act_energy_cal, rng)
        item.update(e_fields)
        energy_en, energy_zh = f"activation energy {e_text}", f"活化能 {e_text}"
        energy_unit = e_fields["ACT_ENERGY_UNITS"]
    targets = [
        replace(
            component_flow_target(product, reaction.glycol, rel=0.02),
            en=f"{glycol.en} flow in {product} (kmol/h)",
        ),
        replace(
            component_flow_target(product, reaction.oxide, rel=0.05, abs_tol=0.02),
            en=f"unreacted {oxide.en} in {product} (kmol/h)",
            zh=f"{product} 中未反应的{oxide.zh} (kmol/h)",
        ),
        duty_target(block, 0.03),
    ]
    ref = block_ref("RCSTR", block, lang, "continuous stirred tank reactor", "连续搅拌釜反应器")
    text = tr(
        lang,
        f"{reaction.name_en.capitalize()} CSTR. Feed {feed} is {feed_text}, liquid. It goes to the "
        f"{ref}, liquid-filled, {num(volume)} m3, held isothermal at {t_text} and {p_text}; the product "
        f"is {product}. Kinetics (POWERLAW reaction set {rset}): liquid-phase {reaction.equation}, "
        f"elementary (first order in {oxide.en} and in water), rate per reactor volume on the molarity "
        f"basis, k = {sci(reaction.pre_exp)} m3/(kmol·s), {energy_en}.",
        f"{reaction.name_zh}连续搅拌釜。进料 {feed}：{feed_text}，液相。进入{ref}，全液相、"
        f"体积 {num(volume)} m3，在 {t_text}、{p_text} 下等温操作，产物 {product}。"
        f"动力学（POWERLAW 反应集 {rset}）：液相反应 {reaction.equation}，"
        f"基元反应（对{oxide.zh}和水各为一级），速率以反应器体积计、浓度基准为摩尔浓度，"
        f"k = {sci(reaction.pre_exp)} m3/(kmol·s)，{energy_zh}。",
    )
    spec = {
        **pres,
        "SPEC_OPT": "TEMP",
        **temp,
        "NPHASE": "1",
        "PHASE": "L",
        "SPEC_TYPE": "VOLUME",
        "VOL_VALUE": volume,
        "VOL_UNITS": "cum",
        "REACSYS": "REACTIONS",
        "RXN_ID": {"1": rset},
    }
    unit = Block(block, "RCSTR", {feed: "F(IN)", product: "P(OUT)"}, {"SPEC_DATA": spec})
    reactions = {"reactions": {rset: {"type": "POWERLAW", "REAC_DATA": [item]}}}
    params = {"f": oxide_flow, "ratio": ratio, "t": (t_r, t_feed), "p": p, "v": volume, "e": energy_unit}
    description, variant = f"generated {reaction.name_en} CSTR", reaction.oxide.lower()
    drawn = draft(
        description,
        cids,
        [unit],
        {feed: feed_data},
        text,
        targets,
        lang,
        variant,
        params,
        method="NRTL",
        sections=reactions,
    )
    fed = feed_data["flow"][reaction.oxide]["FLOW_VALUE"]
    # conversion between 5 % and 98 %: neither a reactor that does nothing nor one that finishes the job
    drawn.bounds.append(("Stream Summary", f"Mole Flows/{reaction.oxide}", product, 0.02 * fed, 0.95 * fed))
    return drawn


__all__ = ["REACTIONS", "LiquidReaction", "cstr"]
