"""Opt-in separator families on block types and a property method the shipped sets do not use: a
hydrotreater's high-pressure separator with CHAO-SEA, and a water / organic Decanter.

Not in :data:`~aspen_rl.datagen.build.SHIPPED_FAMILIES`: ``data/generated/`` does not draw them.
"""

from __future__ import annotations

import random
from dataclasses import replace

from aspen_rl.datagen.components import (
    COMPONENTS,
    DECANTER_ORGANICS,
    H2_SEPARATOR_HEAVY,
    H2_SEPARATOR_LIGHT,
)
from aspen_rl.datagen.drafts import (
    Draft,
    UnitStyle,
    block_ref,
    component_flow_feed,
    component_flow_target,
    draft,
    duty_target,
    family,
    feed_stream,
    flow_target,
    mole_fraction_target,
    sig,
    tr,
)
from aspen_rl.tasks.model import Difficulty
from simulator_mock.flowsheet.builders import ADIABATIC, Block


@family(
    "h2_separator",
    Difficulty.MEDIUM,
    "CHAO-SEA: hot H2 + hydrocarbon reactor effluent cooled by a Heater (TP), split in an adiabatic Flash2",
)
def h2_separator(rng: random.Random, lang: str) -> Draft:
    style = UnitStyle.draw(rng)
    heavy = rng.choice(H2_SEPARATOR_HEAVY)
    others = [c for c in H2_SEPARATOR_HEAVY + H2_SEPARATOR_LIGHT if c != heavy]
    hydrocarbons = [heavy, *rng.sample(others, rng.choice([0, 1, 2]))]
    flows = {"H2": float(rng.choice(range(40, 125, 5)))}
    for cid in hydrocarbons:
        flows[cid] = float(rng.choice(range(5, 45, 5)))
    t_feed = float(rng.choice(range(250, 355, 10)))
    p_feed = float(rng.choice(range(20, 62, 2)))
    t_cool = float(rng.choice(range(30, 65, 5)))
    dp = rng.choice([0.5, 1.0, 1.5, 2.0])
    p_cool = p_feed - dp
    cooler, drum = rng.choice([("C1", "F1"), ("E1", "V1"), ("HX1", "D1"), ("CL1", "HPS1")])
    feed, cooled, gas, liq = rng.choice(
        [
            ("FEED-1", "COOL-1", "GAS-1", "LIQ-1"),
            ("EFF-1", "S-2", "RGAS-1", "HPL-1"),
            ("S-1", "S-2", "S-3", "S-4"),
            ("RX-1", "CL-1", "VAP-1", "LIQ-1"),
        ]
    )
    feed_text, feed_data = component_flow_feed(flows, t_feed, p_feed, style, lang)
    tc_text, tc_spec = style.temperature_of(t_cool)
    pc_text, pc_spec = style.pressure_of(p_cool)
    heavy_c = COMPONENTS[heavy]
    targets = [
        duty_target(cooler),
        replace(mole_fraction_target(gas, "H2"), abs_tol=0.003),  # ~0.9-0.99: 0.01 would be a free guess
        replace(
            component_flow_target(liq, "H2", rel=0.05, abs_tol=0.01),
            en=f"hydrogen dissolved in {liq} (kmol/h)",
            zh=f"{liq} 中溶解的氢气量 (kmol/h)",
        ),
        replace(
            component_flow_target(liq, heavy),
            en=f"{heavy_c.en} recovered in {liq} (kmol/h)",
            zh=f"{liq} 中回收的{heavy_c.zh} (kmol/h)",
        ),
    ]
    c_ref = block_ref("Heater", cooler, lang, "cooler", "冷却器")
    f_ref = block_ref("Flash2", drum, lang, "high-pressure separator", "高压分离器")
    text = tr(
        lang,
        f"Hydrotreater high-pressure separator. The reactor effluent {feed} is {feed_text} (all vapour). "
        f"The {c_ref} cools it to {tc_text} at {pc_text} (outlet {cooled}); the {f_ref} splits {cooled} "
        f"adiabatically, with no further pressure drop, into recycle gas {gas} and liquid {liq}.",
        f"加氢装置高压分离器。反应器出料 {feed}：{feed_text}（全部为气相）。{c_ref}将其冷却到 {tc_text}、"
        f"{pc_text}（出口 {cooled}）；{f_ref}在绝热、无额外压降的条件下将 {cooled} 分离为循环氢气体 {gas} "
        f"和液体 {liq}。",
    )
    method = tr(
        lang,
        "Use the Chao-Seader property method (CHAO-SEA).",
        "物性方法用 Chao-Seader（CHAO-SEA）。",
    )
    cids = list(flows)
    cool = {"SPEC_DATA": {"SPEC_OPT": "TP", **tc_spec, **pc_spec}}
    units = [
        Block(cooler, "Heater", {feed: "F(IN)", cooled: "P(OUT)"}, cool),
        Block(
            drum, "Flash2", {cooled: "F(IN)", gas: "V(OUT)", liq: "L(OUT)"}, {"SPEC_DATA": dict(ADIABATIC)}
        ),
    ]
    params = {"flows": tuple(flows.values()), "t": (t_feed, t_cool), "p": p_feed, "dp": dp}
    description = "generated hydrotreater high-pressure separator"
    drawn = draft(
        description,
        cids,
        units,
        {feed: feed_data},
        text,
        targets,
        lang,
        heavy.lower(),
        params,
        method="CHAO-SEA",
        method_line=method,
    )
    drawn.bounds += [
        ("Stream Summary", "Molar Vapor Fraction", feed, 0.9999, 1.0),  # the text says "all vapour"
        ("Stream Summary", "Mole Flows", liq, 1.0, 1e9),
        ("Stream Summary", "Mole Flows/H2", liq, 0.01, 1e9),
    ]
    return drawn


@family(
    "decanter",
    Difficulty.EASY,
    "one Decanter settling water and a partly miscible organic into two liquids (NRTL or UNIFAC)",
)
def decanter(rng: random.Random, lang: str) -> Draft:
    style = UnitStyle.draw(rng)
    organic = rng.choice(list(DECANTER_ORGANICS))
    method = rng.choice(DECANTER_ORGANICS[organic])
    cids = ("WATER", organic)
    # n-butanol's organic phase holds ~50 mol% water: a feed with less water is one liquid
    grid = range(60, 95, 5) if organic == "BUOH" else range(20, 85, 5)
    x_water = rng.choice(grid) / 100
    xs = [x_water, round(1.0 - x_water, 2)]
    block = rng.choice(["D1", "DEC1", "S1", "DC1"])
    feed, org, aq = rng.choice(
        [
            ("FEED-1", "ORG-1", "AQ-1"),
            ("S-1", "L-1", "L-2"),
            ("IN-1", "ORG-1", "WAT-1"),
            ("FEED-1", "LT-1", "HV-1"),
        ]
    )
    flow = float(rng.choice(range(20, 310, 10)))
    t_feed = float(rng.choice(range(20, 65, 5)))
    t_dec = float(rng.choice(range(20, 65, 5)))
    p_feed = rng.choice([1.0, 1.2, 1.5, 2.0])
    p_dec = rng.choice([p for p in (1.0, 1.2, 1.5) if p <= p_feed])
    feed_text, feed_data = feed_stream(cids, xs, flow, t_feed, p_feed, style, lang)
    t_text, temp = style.temperature_of(t_dec)
    p_text, pres = style.pressure_of(p_dec)
    if pres["PRES_UNITS"] == "atm":  # the Decanter's pressure takes bar, kPa or MPa only
        pres = {"PRES_VALUE": sig(pres["PRES_VALUE"] * 1.01325), "PRES_UNITS": "bar"}
    o = COMPONENTS[organic]
    sparingly = organic in ("BENZENE", "TOLUENE", "NHEXANE")
    # mole fractions of 1e-5..1e-3 (hydrocarbons) or ~0.01 (1-butanol, ethyl acetate): the usual fixed 0.01
    # would accept 0, so 5 % of the value, with a floor well below it
    solubility = replace(mole_fraction_target(aq, organic), abs_tol=1e-6 if sparingly else 1e-4, rel_tol=0.05)
    targets = [flow_target(org), flow_target(aq), solubility]
    ref = block_ref("Decanter", block, lang, "decanter", "倾析器")
    text = tr(
        lang,
        f"Water / {o.en} decanter. Feed {feed} is {feed_text}. The {ref} settles it at {t_text} and "
        f"{p_text} into two liquids: the {o.en}-rich first liquid {org} (L1) and the water-rich second "
        f"liquid {aq} (L2; key component of the second liquid: water).",
        f"水-{o.zh}倾析器。进料 {feed}：{feed_text}。{ref}在 {t_text}、{p_text} 下使其液液分层："
        f"富{o.zh}的第一液相 {org}（L1）和富水的第二液相 {aq}（L2，第二液相关键组分为水）。",
    )
    spec = {**temp, **pres, "L2_COMPS": ["WATER"], "L2_CUTOFF": 0.5}
    unit = Block(block, "Decanter", {feed: "F(IN)", org: "L1(OUT)", aq: "L2(OUT)"}, {"SPEC_DATA": spec})
    params = {"flow": flow, "x": x_water, "t": (t_feed, t_dec), "p": (p_feed, p_dec)}
    description, variant = f"generated water / {o.en} decanter", f"{organic.lower()}_{method.lower()}"
    drawn = draft(
        description, cids, [unit], {feed: feed_data}, text, targets, lang, variant, params, method=method
    )
    drawn.bounds += [  # two liquids, each at least 2 % of the feed, and physically split
        ("Stream Summary", "Mole Flows", org, 0.02 * flow, 1e9),
        ("Stream Summary", "Mole Flows", aq, 0.02 * flow, 1e9),
        ("Stream Summary", f"Mole Fractions/{organic}", aq, 1e-6, 0.1),
        ("Stream Summary", "Mole Fractions/WATER", org, 0.0, 0.7),
    ]
    return drawn


__all__ = ["decanter", "h2_separator"]
