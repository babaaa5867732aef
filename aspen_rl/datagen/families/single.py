"""Single-unit families: heater, pump, compressor, valve, flash drum."""

from __future__ import annotations

import random

from aspen_rl.datagen.components import (
    AQUEOUS_PAIRS,
    GASES,
    HYDROCARBON_PAIRS,
    LIGHT_PAIRS,
    PURE_LIQUIDS,
)
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
    mole_fraction_target,
    mole_fractions,
    temperature_target,
    tr,
    vapor_fraction_target,
)
from aspen_rl.tasks.model import Difficulty
from simulator_mock.flowsheet.builders import Block


def liquid_mixture(rng: random.Random) -> tuple[str, ...]:
    """A pure liquid or a liquid pair."""
    kind = rng.random()
    if kind < 0.35:
        return (rng.choice(PURE_LIQUIDS),)
    if kind < 0.7:
        return rng.choice(AQUEOUS_PAIRS)
    return rng.choice(HYDROCARBON_PAIRS)


@family("heater", Difficulty.EASY, "one Heater: heat or cool to a temperature, or to a bubble/dew point (PV)")
def heater(rng: random.Random, lang: str) -> Draft:
    style = UnitStyle.draw(rng)
    cids = liquid_mixture(rng)
    xs = mole_fractions(rng, len(cids))
    block = rng.choice(["H1", "E1", "B1", "HX1"])
    feed, out = rng.choice([("FEED-1", "PROD-1"), ("IN-1", "OUT-1"), ("S-1", "S-2"), ("LIQ-1", "HOT-1")])
    flow = float(rng.choice(range(20, 510, 10)))
    t_in = float(rng.choice(range(15, 65, 5)))
    p = rng.choice([1.0, 1.2, 1.5, 2.0, 3.0, 5.0])
    feed_text, feed_data = feed_stream(cids, xs, flow, t_in, p, style, lang)
    p_text, pres = style.pressure_of(p)
    mode = rng.choice(["TP", "TP", "bubble", "dew"])
    if mode == "TP":
        t_out = float(rng.choice([t for t in range(0, 200, 5) if abs(t - t_in) >= 15]))
        t_text, temp = style.temperature_of(t_out)
        spec = {"SPEC_OPT": "TP", **temp, **pres}
        verb = tr(lang, "heats" if t_out > t_in else "cools", "加热" if t_out > t_in else "冷却")
        action = tr(lang, f"{verb} it to {t_text} at {p_text}", f"在 {p_text} 下将其{verb}到 {t_text}")
        targets = [duty_target(block), enthalpy_target(out)]
        outlet = {"t_out": t_out}
    else:
        vf = 0.0 if mode == "bubble" else 1.0
        spec = {"SPEC_OPT": "PV", **pres, "VFRAC_VALUE": vf}
        action = tr(
            lang,
            f"brings it to its {'bubble' if vf == 0 else 'dew'} point at {p_text} (vapor fraction {vf:g})",
            f"在 {p_text} 下将其加热到{'泡点' if vf == 0 else '露点'}（汽相分率 {vf:g}）",
        )
        targets = [temperature_target(out), duty_target(block)]
        outlet = {"vf": vf}
    ref = block_ref("Heater", block, lang, "heater", "换热器")
    text = tr(
        lang,
        f"Feed {feed} is {feed_text}. The {ref} {action}; its outlet is {out}.",
        f"进料 {feed}：{feed_text}。{ref}{action}，出口流股为 {out}。",
    )
    unit = Block(block, "Heater", {feed: "F(IN)", out: "P(OUT)"}, {"SPEC_DATA": spec})
    params = {"flow": flow, "t_in": t_in, "p": p, "xs": xs, **outlet}
    return draft("generated heater", cids, [unit], {feed: feed_data}, text, targets, lang, mode, params)


@family("pump", Difficulty.EASY, "one Pump raising a liquid to a discharge pressure")
def pump(rng: random.Random, lang: str) -> Draft:
    style = UnitStyle.draw(rng)
    cids = liquid_mixture(rng)
    xs = mole_fractions(rng, len(cids))
    block = rng.choice(["P1", "P2", "PUMP1"])
    feed, out = rng.choice([("FEED-1", "HP-1"), ("LIQ-1", "DIS-1"), ("S-1", "S-2"), ("IN-1", "OUT-1")])
    flow = float(rng.choice(range(20, 510, 10)))
    t_in = float(rng.choice(range(15, 50, 5)))
    p_in = rng.choice([1.0, 1.2, 1.5, 2.0])
    p_out = float(rng.choice(range(5, 65, 5)))
    feed_text, feed_data = feed_stream(cids, xs, flow, t_in, p_in, style, lang)
    p_text, pres = style.pressure_of(p_out)
    ref = block_ref("Pump", block, lang, "pump", "泵")
    targets = [
        block_target(block, "FLUID_POWER", "kW", f"{block} fluid power (kW)", f"{block} 的流体功率 (kW)"),
        block_target(block, "ELEC_POWER", "kW", f"{block} electricity (kW)", f"{block} 的电功率 (kW)"),
        temperature_target(out),
    ]
    text = tr(
        lang,
        f"Feed {feed} is {feed_text}. The {ref} raises it to {p_text} (outlet {out}), at the default "
        "efficiency.",
        f"进料 {feed}：{feed_text}。{ref}将其加压到 {p_text}（出口 {out}），效率取默认值。",
    )
    lift = {"PUMP_TYPE": "PUMP", "OPT_SPEC": "PRES", **pres}
    unit = Block(block, "Pump", {feed: "F(IN)", out: "P(OUT)"}, {"SPEC_DATA": lift})
    params = {"flow": flow, "t": t_in, "p": p_in, "po": p_out, "xs": xs}
    return draft("generated pump", cids, [unit], {feed: feed_data}, text, targets, lang, "pres", params)


@family("compressor", Difficulty.EASY, "one isentropic Compr raising a gas to a discharge pressure")
def compressor(rng: random.Random, lang: str) -> Draft:
    style = UnitStyle.draw(rng)
    cids = rng.choice(GASES)
    xs = mole_fractions(rng, len(cids))
    block = rng.choice(["K1", "C1", "K2"])
    feed, out = rng.choice([("GAS-1", "HP-1"), ("FEED-1", "HOT-1"), ("S-1", "S-2"), ("SUC-1", "DIS-1")])
    flow = float(rng.choice(range(50, 1050, 50)))
    t_in = float(rng.choice(range(15, 50, 5)))
    p_in = rng.choice([1.0, 1.5, 2.0, 3.0, 5.0])
    p_out = round(p_in * rng.choice([2.0, 2.5, 3.0, 3.5, 4.0]), 2)
    feed_text, feed_data = feed_stream(cids, xs, flow, t_in, p_in, style, lang)
    p_text, pres = style.pressure_of(p_out)
    ref = block_ref("Compr", block, lang, "compressor", "压缩机")
    targets = [
        block_target(block, "WNET", "kW", f"{block} power (kW)", f"{block} 的功率 (kW)", rel=0.02),
        temperature_target(out, 1.0),
    ]
    text = tr(
        lang,
        f"Gas feed {feed} is {feed_text}. The {ref}, isentropic at Aspen's default efficiency, compresses it "
        f"to {p_text} (outlet {out}).",
        f"气体进料 {feed}：{feed_text}。{ref}按等熵压缩（默认效率）将其压缩到 {p_text}（出口 {out}）。",
    )
    spec = {"MODEL_TYPE": "COMPRESSOR", "TYPE": "ISENTROPIC", "OPT_SPEC": "PRES", **pres}
    unit = Block(block, "Compr", {feed: "F(IN)", out: "P(OUT)"}, {"SPEC_DATA": spec})
    params = {"flow": flow, "t": t_in, "p": p_in, "po": p_out, "xs": xs}
    return draft("generated compressor", cids, [unit], {feed: feed_data}, text, targets, lang, "pres", params)


@family("valve", Difficulty.EASY, "one adiabatic Valve letting a pressurised liquid down (it flashes)")
def valve(rng: random.Random, lang: str) -> Draft:
    style = UnitStyle.draw(rng)
    cids = rng.choice(LIGHT_PAIRS)
    xs = mole_fractions(rng, 2)
    block = rng.choice(["V1", "V2", "LV1"])
    feed, out = rng.choice([("LPG-1", "S-2"), ("FEED-1", "LP-1"), ("LIQ-1", "OUT-1")])
    flow = float(rng.choice(range(20, 510, 10)))
    t_in = float(rng.choice(range(20, 50, 5)))
    p_in = float(rng.choice([20, 25, 30, 35]))
    p_out = float(rng.choice([2, 3, 4, 5, 6, 8]))
    feed_text, feed_data = feed_stream(cids, xs, flow, t_in, p_in, style, lang)
    p_text, pres = style.pressure_of(p_out, "P_OUT")
    ref = block_ref("Valve", block, lang, "valve", "阀门")
    targets = [temperature_target(out), vapor_fraction_target(out)]
    text = tr(
        lang,
        f"Liquid feed {feed} is {feed_text}. The {ref} lets it down adiabatically to {p_text} (outlet "
        f"{out}).",
        f"液体进料 {feed}：{feed_text}。{ref}将其绝热节流到 {p_text}（出口 {out}）。",
    )
    job = {"MODE": "ADIAB-FLASH", **pres, "FLASH_MAXIT": 30, "FLASH_TOL": 0.0001}
    unit = Block(block, "Valve", {feed: "F(IN)", out: "P(OUT)"}, {"JOB_DATA": job})
    params = {"flow": flow, "t": t_in, "p": p_in, "po": p_out, "xs": xs}
    drawn = draft(
        "generated valve", cids, [unit], {feed: feed_data}, text, targets, lang, "adiabatic", params
    )
    drawn.bounds.append(("Stream Summary", "Molar Vapor Fraction", out, 0.02, 0.98))
    return drawn


@family("flash", Difficulty.EASY, "one Flash2 drum at a pressure and vapor fraction, or adiabatic (PD)")
def flash(rng: random.Random, lang: str) -> Draft:
    style = UnitStyle.draw(rng)
    cids = rng.choice(AQUEOUS_PAIRS + HYDROCARBON_PAIRS)
    xs = mole_fractions(rng, 2)
    block = rng.choice(["F1", "D1", "FL1"])
    feed, vap, liq = rng.choice(
        [("FEED-1", "VAP-1", "LIQ-1"), ("S-1", "V-1", "L-1"), ("IN-1", "TOP-1", "BTM-1")]
    )
    flow = float(rng.choice(range(20, 510, 10)))
    t_in = float(rng.choice(range(20, 60, 5)))
    p = rng.choice([1.0, 1.2, 1.5, 2.0])
    feed_text, feed_data = feed_stream(cids, xs, flow, t_in, p, style, lang)
    p_text, pres = style.pressure_of(p)
    vf = rng.choice([0.2, 0.25, 0.3, 0.4, 0.5, 0.6, 0.7, 0.75])
    ref = block_ref("Flash2", block, lang, "flash drum", "闪蒸罐")
    targets = [
        block_target(
            block,
            "B_TEMP",
            "C",
            f"{block} temperature (°C)",
            f"{block} 的闪蒸温度 (°C)",
            rel=0.0,
            abs_tol=0.5,
        ),
        duty_target(block),
        mole_fraction_target(vap, cids[0]),
    ]
    text = tr(
        lang,
        f"Feed {feed} is {feed_text}. The {ref} vaporises {num_pct(vf)} of it (molar vapor fraction "
        f"{vf:g}) at "
        f"{p_text}; vapour {vap}, liquid {liq}.",
        f"进料 {feed}：{feed_text}。{ref}"
        f"在 {p_text} 下使其汽化 {num_pct(vf)}（汽相分率 {vf:g}），汽相 {vap}，液相 "
        f"{liq}。",
    )
    spec = {"SPEC_OPT": "PV", **pres, "VFRAC_VALUE": vf}
    unit = Block(block, "Flash2", {feed: "F(IN)", vap: "V(OUT)", liq: "L(OUT)"}, {"SPEC_DATA": spec})
    params = {"flow": flow, "t": t_in, "p": p, "vf": vf, "xs": xs}
    return draft("generated flash", cids, [unit], {feed: feed_data}, text, targets, lang, "pv", params)


def num_pct(fraction: float) -> str:
    """0.25 -> '25 %'."""
    return f"{100 * fraction:g} %"
