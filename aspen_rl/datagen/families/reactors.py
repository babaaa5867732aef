"""Reactor + separation: a stoichiometric reactor (RStoic) at a conversion, cooler, flash drum."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from aspen_rl.datagen.components import COMPONENTS
from aspen_rl.datagen.drafts import (
    Draft,
    TargetSpec,
    UnitStyle,
    block_ref,
    draft,
    duty_target,
    family,
    flow_target,
    method_text,
    num,
    tr,
)
from aspen_rl.tasks.model import Difficulty
from simulator_mock.flowsheet.builders import Block, component_flows


@dataclass(frozen=True)
class Reaction:
    """A reaction with its feed ratio range, conversion range and reactor conditions."""

    name_en: str
    name_zh: str
    equation: str
    key: str
    reactants: dict[str, int]
    products: dict[str, int]
    co_reactant: str
    ratio: tuple[float, ...]
    conversion: tuple[float, ...]
    temperature: tuple[int, ...]
    pressure: tuple[float, ...]
    liquid_product: str


REACTIONS = (
    Reaction(
        "benzene hydrogenation",
        "苯加氢",
        "C6H6 + 3 H2 -> C6H12",
        "BENZENE",
        {"BENZENE": -1, "H2": -3},
        {"C6H12": 1},
        "H2",
        (3.2, 3.3, 3.5, 4.0),
        (0.9, 0.95, 0.98, 0.99),
        (180, 200, 220),
        (25.0, 30.0, 35.0),
        "C6H12",
    ),
    Reaction(
        "methanol synthesis",
        "甲醇合成",
        "CO + 2 H2 -> CH3OH",
        "CO",
        {"CO": -1, "H2": -2},
        {"MEOH": 1},
        "H2",
        (2.2, 2.5, 3.0),
        (0.2, 0.3, 0.4, 0.5),
        (230, 250, 270),
        (50.0, 60.0, 70.0, 80.0),
        "MEOH",
    ),
    Reaction(
        "toluene hydrodealkylation",
        "甲苯加氢脱烷基",
        "C7H8 + H2 -> C6H6 + CH4",
        "TOLUENE",
        {"TOLUENE": -1, "H2": -1},
        {"BENZENE": 1, "METHANE": 1},
        "H2",
        (3.0, 4.0, 5.0),
        (0.6, 0.7, 0.8, 0.9),
        (600, 620, 650),
        (25.0, 30.0, 35.0),
        "BENZENE",
    ),
)


def _component_flow_feed(
    flows: dict[str, float], t_c: float, p_bar: float, style: UnitStyle, lang: str
) -> tuple[str, dict[str, Any]]:
    t_text, temperature = style.temperature_of(t_c)
    p_text, pressure = style.pressure_of(p_bar)
    parts = [f"{getattr(COMPONENTS[c], lang)} {num(v)} kmol/h" for c, v in flows.items()]
    text = tr(
        lang,
        f"{' and '.join(parts)} (component molar flows), at {t_text} and {p_text}",
        f"{'、'.join(parts)}（按组分摩尔流量给定），{t_text}、{p_text}",
    )
    data = {
        "MIXED_SPEC": "TP",
        "temperature": temperature,
        "pressure": pressure,
        "flow": component_flows(flows),
    }
    return text, data


@family("reactor", Difficulty.HARD, "RStoic at a key conversion, then a cooler and a flash drum")
def reactor(rng: random.Random, lang: str) -> Draft:
    style = UnitStyle.draw(rng)
    reaction = rng.choice(REACTIONS)
    key_flow = float(rng.choice(range(50, 210, 10)))
    ratio = rng.choice(reaction.ratio)
    flows = {reaction.key: key_flow, reaction.co_reactant: round(key_flow * ratio, 1)}
    cids = list(dict.fromkeys([*flows, *reaction.products]))
    conversion = rng.choice(reaction.conversion)
    t_r = float(rng.choice(reaction.temperature))
    p_r = rng.choice(reaction.pressure)
    t_feed = float(rng.choice([100, 120, 150, 180]))
    t_cool = float(rng.choice([30, 35, 40, 45, 50]))
    p_cool = round(p_r - 0.5, 2)
    r, e, f = rng.choice([("R1", "E1", "F1"), ("RX1", "C1", "D1"), ("R1", "E2", "V1")])
    feed, s2, s3, gas, liq = rng.choice(
        [("FEED-1", "S-2", "S-3", "GAS-1", "PROD-1"), ("F-1", "RX-1", "CL-1", "VAP-1", "LIQ-1")]
    )
    feed_text, data = _component_flow_feed(flows, t_feed, p_r, style, lang)
    tr_text, tr_spec = style.temperature_of(t_r)
    pr_text, pr_spec = style.pressure_of(p_r)
    tc_text, tc_spec = style.temperature_of(t_cool)
    pc_text, pc_spec = style.pressure_of(p_cool)
    product = COMPONENTS[reaction.liquid_product]
    targets = [
        duty_target(r),
        duty_target(e),
        TargetSpec(
            f"{liq} {product.en} flow",
            "Stream Summary",
            f"Mole Flows/{product.cid}",
            liq,
            "kmol/hr",
            abs_tol=0.05,
            rel_tol=0.02,
            en=f"{product.en} molar flow in {liq} (kmol/h)",
            zh=f"{liq} 中{product.zh}的摩尔流量 (kmol/h)",
        ),
        flow_target(gas),
    ]
    key = COMPONENTS[reaction.key]
    r_ref = block_ref("RStoic", r, lang, "stoichiometric reactor", "化学计量反应器")
    e_ref = block_ref("Heater", e, lang, "cooler", "冷却器")
    f_ref = block_ref("Flash2", f, lang, "flash drum", "闪蒸罐")
    text = tr(
        lang,
        f"{reaction.name_en.capitalize()} with separation. Feed {feed}: {feed_text}. The {r_ref} runs "
        f"{reaction.equation} at {tr_text} and {pr_text} with {num(100 * conversion)} % conversion of "
        f"{key.en} (outlet {s2}); the {e_ref} cools {s2} to {tc_text} at {pc_text} ({s3}); the {f_ref} "
        "separates "
        f"{s3} at {tc_text} and {pc_text} into gas {gas} and liquid {liq}.",
        f"{reaction.name_zh}（反应 + 分离）。进料 {feed}：{feed_text}。{r_ref}在 {tr_text}、{pr_text} 下进行 "
        f"{reaction.equation}，{key.zh}转化率 {num(100 * conversion)} %，出口 {s2}；{e_ref}将 {s2} 冷却到 "
        f"{tc_text}、{pc_text}（{s3}）；{f_ref}在 {tc_text}、{pc_text} 下分出气体 {gas} 和液体 {liq}。",
    )
    reac = {
        "KEY_SSID": "1",
        "OPT_EXT_CONV": "CONVERSION",
        "KEY_CID": reaction.key,
        "CONV": conversion,
        "COEF_DATA": dict(reaction.reactants),
        "COEF1_DATA": dict(reaction.products),
    }
    react = {"SPEC_DATA": {"SPEC_OPT": "TP", **tr_spec, **pr_spec}, "REAC_DATA": {"REAC": [reac]}}
    cool = {"SPEC_OPT": "TP", **tc_spec, **pc_spec}
    units = [
        Block(r, "RStoic", {feed: "F(IN)", s2: "P(OUT)"}, react),
        Block(e, "Heater", {s2: "F(IN)", s3: "P(OUT)"}, {"SPEC_DATA": cool}),
        Block(f, "Flash2", {s3: "F(IN)", gas: "V(OUT)", liq: "L(OUT)"}, {"SPEC_DATA": dict(cool)}),
    ]
    params = {
        "r": reaction.key,
        "f": key_flow,
        "ratio": ratio,
        "x": conversion,
        "t": (t_r, t_feed, t_cool),
        "p": p_r,
    }
    description, variant = f"generated {reaction.name_en}", reaction.key.lower()
    drawn = draft(
        description, cids, units, {feed: data}, text, targets, lang, variant, params, method="PENG-ROB"
    )
    drawn.bounds.append(("Stream Summary", "Mole Flows", liq, 0.5, 1e9))
    return drawn


__all__ = ["REACTIONS", "Reaction", "method_text", "reactor"]
