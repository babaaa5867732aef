"""Unit trains: two units in series (mixer + heater, heater + flash, valve + flash, compressor + cooler,
pump + heater)."""

from __future__ import annotations

import random
from typing import Any

from aspen_rl.datagen.components import AQUEOUS_PAIRS, GASES, HYDROCARBON_PAIRS, LIGHT_PAIRS
from aspen_rl.datagen.drafts import (
    Draft,
    UnitStyle,
    block_ref,
    block_target,
    draft,
    duty_target,
    enthalpy_target,
    family,
    feed_stream,
    flow_target,
    mole_fraction_target,
    mole_fractions,
    temperature_target,
    tr,
    vapor_fraction_target,
)
from aspen_rl.datagen.families.single import liquid_mixture
from aspen_rl.tasks.model import Difficulty
from simulator_mock.flowsheet.builders import Block

VARIANTS = ("mixer_heater", "heater_flash", "valve_flash", "compr_cooler", "pump_heater")

MIXER = {"SPEC_DATA": {"PRES_VALUE": 0, "PRES_UNITS": "bar", "MAXIT_VALUE": 30, "TOL_VALUE": 0.0001}}


def adiabatic_drum(pres: dict[str, Any]) -> dict[str, Any]:
    """Flash2 input data: adiabatic (PD, no duty) at the pressure ``pres`` ({PRES_VALUE, PRES_UNITS})."""
    return {"SPEC_DATA": {"SPEC_OPT": "PD", **pres, "DUTY_VALUE": 0, "DUTY_UNITS": "kW"}}


@family("train", Difficulty.MEDIUM, "two units in series: " + ", ".join(VARIANTS))
def train(rng: random.Random, lang: str) -> Draft:
    variant = rng.choice(VARIANTS)
    return {
        "mixer_heater": _mixer_heater,
        "heater_flash": _heater_flash,
        "valve_flash": _valve_flash,
        "compr_cooler": _compr_cooler,
        "pump_heater": _pump_heater,
    }[variant](rng, lang, UnitStyle.draw(rng))


def _mixer_heater(rng: random.Random, lang: str, style: UnitStyle) -> Draft:
    cids = rng.choice(AQUEOUS_PAIRS + HYDROCARBON_PAIRS)
    x1, x2 = mole_fractions(rng, 2), mole_fractions(rng, 2)
    f1, f2 = float(rng.choice(range(20, 210, 10))), float(rng.choice(range(20, 210, 10)))
    t1, t2 = float(rng.choice(range(15, 45, 5))), float(rng.choice(range(50, 80, 5)))
    p = rng.choice([1.2, 1.5, 2.0])
    t_out = float(rng.choice(range(60, 130, 5)))
    mixer, heater = rng.choice([("M1", "H1"), ("MX1", "E1"), ("M1", "E2")])
    s1, s2, s3, s4 = rng.choice([("S-1", "S-2", "S-3", "S-4"), ("FA-1", "FB-1", "MIX-1", "PROD-1")])
    a_text, a = feed_stream(cids, x1, f1, t1, p, style, lang)
    b_text, b = feed_stream(cids, x2, f2, t2, p, style, lang)
    t_text, temp = style.temperature_of(t_out)
    p_text, pres = style.pressure_of(p)
    targets = [temperature_target(s3), duty_target(heater), enthalpy_target(s4)]
    m_ref = block_ref("Mixer", mixer, lang, "mixer", "混合器")
    h_ref = block_ref("Heater", heater, lang, "heater", "加热器")
    text = tr(
        lang,
        f"Two feeds are mixed and heated. {s1}: {a_text}. {s2}: {b_text}. The {m_ref} combines them into "
        f"{s3}; "
        f"the {h_ref} heats {s3} to {t_text} at {p_text}, outlet {s4}.",
        f"两股物料混合后加热。{s1}：{a_text}；{s2}：{b_text}。{m_ref}将两股混合为 {s3}，"
        f"{h_ref}在 {p_text} 下将 {s3} 加热到 {t_text}，出口 {s4}。",
    )
    heat = {"SPEC_OPT": "TP", **temp, **pres}
    units = [
        Block(mixer, "Mixer", {s1: "F(IN)", s2: "F(IN)", s3: "P(OUT)"}, MIXER),
        Block(heater, "Heater", {s3: "F(IN)", s4: "P(OUT)"}, {"SPEC_DATA": heat}),
    ]
    params = {"f": (f1, f2), "t": (t1, t2, t_out), "p": p, "x": (x1[0], x2[0])}
    return draft(
        "generated mixer_heater", cids, units, {s1: a, s2: b}, text, targets, lang, "mixer_heater", params
    )


def _heater_flash(rng: random.Random, lang: str, style: UnitStyle) -> Draft:
    cids = rng.choice(AQUEOUS_PAIRS + HYDROCARBON_PAIRS)
    xs = mole_fractions(rng, 2)
    flow = float(rng.choice(range(20, 510, 10)))
    t_in = float(rng.choice(range(15, 45, 5)))
    p = rng.choice([1.0, 1.2, 1.5, 2.0])
    vf = rng.choice([0.2, 0.3, 0.4, 0.5, 0.6, 0.7])
    heater, drum = rng.choice([("E1", "F1"), ("H1", "F1"), ("PH1", "D1")])
    feed, s2, vap, liq = rng.choice([("FEED-1", "S-2", "VAP-1", "LIQ-1"), ("S-1", "S-2", "V-1", "L-1")])
    feed_text, data = feed_stream(cids, xs, flow, t_in, p, style, lang)
    p_text, pres = style.pressure_of(p)
    targets = [duty_target(heater), flow_target(vap), mole_fraction_target(vap, cids[0])]
    h_ref = block_ref("Heater", heater, lang, "preheater", "预热器")
    f_ref = block_ref("Flash2", drum, lang, "drum", "闪蒸罐")
    text = tr(
        lang,
        f"Feed {feed} is {feed_text}. The {h_ref} heats it at {p_text} until {vf:g} of it is vapour (molar "
        f"vapor fraction {vf:g}), stream {s2}; the adiabatic {f_ref} (no duty, {p_text}) separates {s2} into "
        f"vapour {vap} and liquid {liq}.",
        f"进料 {feed}：{feed_text}。{h_ref}在 {p_text} 下将其加热到汽相分率 {vf:g}（流股 {s2}）；"
        f"{f_ref}绝热操作（热负荷 0，{p_text}）将 {s2} 分为汽相 {vap} 和液相 {liq}。",
    )
    heat = {"SPEC_OPT": "PV", **pres, "VFRAC_VALUE": vf}
    units = [
        Block(heater, "Heater", {feed: "F(IN)", s2: "P(OUT)"}, {"SPEC_DATA": heat}),
        Block(drum, "Flash2", {s2: "F(IN)", vap: "V(OUT)", liq: "L(OUT)"}, adiabatic_drum(pres)),
    ]
    params = {"f": flow, "t": t_in, "p": p, "vf": vf, "x": xs[0]}
    return draft(
        "generated heater_flash", cids, units, {feed: data}, text, targets, lang, "heater_flash", params
    )


def _valve_flash(rng: random.Random, lang: str, style: UnitStyle) -> Draft:
    cids = rng.choice(LIGHT_PAIRS)
    xs = mole_fractions(rng, 2)
    flow = float(rng.choice(range(20, 510, 10)))
    t_in = float(rng.choice(range(20, 50, 5)))
    p_in = float(rng.choice([20, 25, 30]))
    p_out = float(rng.choice([2, 3, 4, 5, 6, 8]))
    valve, drum = rng.choice([("V1", "F1"), ("LV1", "D1")])
    feed, s2, vap, liq = rng.choice(
        [("LPG-1", "S-2", "VAP-1", "BTM-1"), ("FEED-1", "LP-1", "GAS-1", "LIQ-1")]
    )
    feed_text, data = feed_stream(cids, xs, flow, t_in, p_in, style, lang)
    p_text, p_out_spec = style.pressure_of(p_out, "P_OUT")
    _, pres = style.pressure_of(p_out)
    targets = [temperature_target(s2), vapor_fraction_target(s2), flow_target(vap)]
    v_ref = block_ref("Valve", valve, lang, "valve", "阀门")
    f_ref = block_ref("Flash2", drum, lang, "drum", "闪蒸罐")
    text = tr(
        lang,
        f"Liquid {feed} is {feed_text}. The {v_ref} lets it down to {p_text} (stream {s2}); the {f_ref} then "
        f"separates {s2} adiabatically at {p_text} into vapour {vap} and liquid {liq}.",
        f"液体 {feed}：{feed_text}。{v_ref}将其节流到 {p_text}（流股 {s2}），{f_ref}在 {p_text} 下绝热闪蒸 "
        f"{s2}，"
        f"汽相 {vap}，液相 {liq}。",
    )
    job = {"MODE": "ADIAB-FLASH", **p_out_spec, "FLASH_MAXIT": 30, "FLASH_TOL": 0.0001}
    units = [
        Block(valve, "Valve", {feed: "F(IN)", s2: "P(OUT)"}, {"JOB_DATA": job}),
        Block(drum, "Flash2", {s2: "F(IN)", vap: "V(OUT)", liq: "L(OUT)"}, adiabatic_drum(pres)),
    ]
    params = {"f": flow, "t": t_in, "p": (p_in, p_out), "x": xs[0]}
    drawn = draft(
        "generated valve_flash", cids, units, {feed: data}, text, targets, lang, "valve_flash", params
    )
    drawn.bounds.append(("Stream Summary", "Molar Vapor Fraction", s2, 0.02, 0.98))
    return drawn


def _compr_cooler(rng: random.Random, lang: str, style: UnitStyle) -> Draft:
    cids = rng.choice(GASES)
    xs = mole_fractions(rng, len(cids))
    flow = float(rng.choice(range(50, 1050, 50)))
    t_in = float(rng.choice(range(15, 45, 5)))
    p_in = rng.choice([1.0, 1.5, 2.0, 3.0])
    p_out = round(p_in * rng.choice([2.0, 2.5, 3.0, 4.0]), 2)
    t_out = float(rng.choice(range(25, 55, 5)))
    comp, cooler = rng.choice([("K1", "E1"), ("C1", "AC1"), ("K1", "C2")])
    feed, hot, cold = rng.choice([("FEED-1", "HOT-1", "GAS-1"), ("S-1", "S-2", "S-3")])
    feed_text, data = feed_stream(cids, xs, flow, t_in, p_in, style, lang)
    p_text, pres = style.pressure_of(p_out)
    t_text, temp = style.temperature_of(t_out)
    targets = [
        block_target(comp, "WNET", "kW", f"{comp} power (kW)", f"{comp} 的功率 (kW)", rel=0.02),
        temperature_target(hot, 1.0),
        duty_target(cooler),
    ]
    k_ref = block_ref("Compr", comp, lang, "compressor", "压缩机")
    c_ref = block_ref("Heater", cooler, lang, "aftercooler", "后冷却器")
    text = tr(
        lang,
        f"Gas {feed} is {feed_text}. The {k_ref} (isentropic, default efficiency) compresses it to {p_text} "
        f"(stream {hot}); the {c_ref} cools {hot} to {t_text} at {p_text} (stream {cold}).",
        f"气体 {feed}：{feed_text}。{k_ref}（等熵，默认效率）将其压缩到 {p_text}（流股 {hot}），"
        f"{c_ref}在 {p_text} 下将 {hot} 冷却到 {t_text}（流股 {cold}）。",
    )
    compress = {"MODEL_TYPE": "COMPRESSOR", "TYPE": "ISENTROPIC", "OPT_SPEC": "PRES", **pres}
    cool = {"SPEC_OPT": "TP", **temp, **pres}
    units = [
        Block(comp, "Compr", {feed: "F(IN)", hot: "P(OUT)"}, {"SPEC_DATA": compress}),
        Block(cooler, "Heater", {hot: "F(IN)", cold: "P(OUT)"}, {"SPEC_DATA": cool}),
    ]
    params = {"f": flow, "t": (t_in, t_out), "p": (p_in, p_out), "x": tuple(xs)}
    return draft(
        "generated compr_cooler", cids, units, {feed: data}, text, targets, lang, "compr_cooler", params
    )


def _pump_heater(rng: random.Random, lang: str, style: UnitStyle) -> Draft:
    cids = liquid_mixture(rng)
    xs = mole_fractions(rng, len(cids))
    flow = float(rng.choice(range(20, 310, 10)))
    t_in = float(rng.choice(range(15, 45, 5)))
    p_in = rng.choice([1.0, 1.5])
    p_out = float(rng.choice(range(5, 45, 5)))
    t_out = float(rng.choice(range(60, 200, 10)))
    pump, heater = rng.choice([("P1", "H1"), ("P1", "E1"), ("PU1", "B1")])
    feed, hp, hot = rng.choice([("FEED-1", "HP-1", "HOT-1"), ("S-1", "S-2", "S-3")])
    feed_text, data = feed_stream(cids, xs, flow, t_in, p_in, style, lang)
    p_text, pres = style.pressure_of(p_out)
    t_text, temp = style.temperature_of(t_out)
    targets = [
        block_target(pump, "FLUID_POWER", "kW", f"{pump} fluid power (kW)", f"{pump} 的流体功率 (kW)"),
        duty_target(heater),
        enthalpy_target(hot),
    ]
    p_ref = block_ref("Pump", pump, lang, "pump", "泵")
    h_ref = block_ref("Heater", heater, lang, "heater", "加热器")
    text = tr(
        lang,
        f"Liquid {feed} is {feed_text}. The {p_ref} raises it to {p_text} (stream {hp}); the {h_ref} heats "
        f"{hp} to {t_text} at {p_text} (stream {hot}).",
        f"液体 {feed}：{feed_text}。{p_ref}将其加压到 {p_text}（流股 {hp}），{h_ref}在 {p_text} 下将 {hp} "
        f"加热到 {t_text}（流股 {hot}）。",
    )
    lift = {"PUMP_TYPE": "PUMP", "OPT_SPEC": "PRES", **pres}
    heat = {"SPEC_OPT": "TP", **temp, **pres}
    units = [
        Block(pump, "Pump", {feed: "F(IN)", hp: "P(OUT)"}, {"SPEC_DATA": lift}),
        Block(heater, "Heater", {hp: "F(IN)", hot: "P(OUT)"}, {"SPEC_DATA": heat}),
    ]
    params = {"f": flow, "t": (t_in, t_out), "p": (p_in, p_out), "x": tuple(xs)}
    return draft(
        "generated pump_heater", cids, units, {feed: data}, text, targets, lang, "pump_heater", params
    )
