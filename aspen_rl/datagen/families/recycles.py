"""Recycle loops: mixer, heater to a vapor fraction, adiabatic flash, splitter returning liquid (torn)."""

from __future__ import annotations

import random

from aspen_rl.datagen.components import AQUEOUS_PAIRS, HYDROCARBON_PAIRS
from aspen_rl.datagen.drafts import (
    Draft,
    UnitStyle,
    block_ref,
    draft,
    duty_target,
    family,
    feed_stream,
    flow_target,
    mole_fraction_target,
    mole_fractions,
    num,
    tr,
)
from aspen_rl.datagen.families.trains import MIXER, adiabatic_drum
from aspen_rl.tasks.model import Difficulty
from simulator_mock.flowsheet.builders import Block


@family(
    "recycle", Difficulty.HARD, "flash loop: mixer, heater, flash, splitter returning liquid to the mixer"
)
def recycle(rng: random.Random, lang: str) -> Draft:
    style = UnitStyle.draw(rng)
    cids = rng.choice(AQUEOUS_PAIRS + HYDROCARBON_PAIRS)
    xs = mole_fractions(rng, 2)
    flow = float(rng.choice(range(50, 310, 10)))
    t_in = float(rng.choice(range(20, 45, 5)))
    p = rng.choice([1.0, 1.2, 1.5, 2.0])
    vf = rng.choice([0.3, 0.4, 0.5, 0.6, 0.7])
    purge = rng.choice([0.2, 0.3, 0.4, 0.5, 0.6])
    m, h, f, sp = rng.choice([("M1", "H1", "F1", "SP1"), ("MX1", "E1", "D1", "S1")])
    fresh, rec, s1, s2, vap, liq, prg = rng.choice(
        [
            ("FRESH-1", "REC-1", "S-1", "S-2", "VAP-1", "LIQ-1", "PURGE-1"),
            ("FEED-1", "RCY-1", "MIX-1", "HOT-1", "TOP-1", "BTM-1", "PRG-1"),
        ]
    )
    feed_text, data = feed_stream(cids, xs, flow, t_in, p, style, lang)
    p_text, pres = style.pressure_of(p)
    targets = [flow_target(rec), flow_target(vap), mole_fraction_target(vap, cids[0]), duty_target(h, 0.03)]
    m_ref = block_ref("Mixer", m, lang, "mixer", "混合器")
    h_ref = block_ref("Heater", h, lang, "heater", "加热器")
    f_ref = block_ref("Flash2", f, lang, "flash drum", "闪蒸罐")
    s_ref = block_ref("FSplit", sp, lang, "splitter", "分流器")
    text = tr(
        lang,
        f"Flash loop with liquid recycle. Fresh feed {fresh}: {feed_text}. The {m_ref} combines {fresh} "
        "with the "
        f"recycle {rec} into {s1}; the {h_ref} heats {s1} at {p_text} to a molar vapor fraction of {vf:g} "
        f"({s2}); the adiabatic {f_ref} (no duty, {p_text}) separates {s2} into vapour {vap} and liquid "
        f"{liq}; "
        f"the {s_ref} sends {num(100 * purge)} % of {liq} to {prg} and the rest back as {rec}. Converge the "
        f"recycle (tear stream {rec}).",
        f"带液相循环的闪蒸回路。新鲜进料 {fresh}：{feed_text}。{m_ref}将 {fresh} 与循环物流 {rec} 混合为 "
        f"{s1}；"
        f"{h_ref}在 {p_text} 下将 {s1} 加热到汽相分率 {vf:g}（{s2}）；"
        f"{f_ref}绝热操作（热负荷 0，{p_text}）将 {s2} "
        ""
        f"分为汽相 {vap} 和液相 {liq}；{s_ref}将 {liq} 的 {num(100 * purge)} % 送往 {prg}，其余作为 {rec} "
        "返回。"
        f"请收敛循环（撕裂流股 {rec}）。",
    )
    heat = {"SPEC_OPT": "PV", **pres, "VFRAC_VALUE": vf}
    split = {"FRAC": {prg: {"FRAC_VALUE": purge}}}
    units = [
        Block(m, "Mixer", {fresh: "F(IN)", rec: "F(IN)", s1: "P(OUT)"}, MIXER),
        Block(h, "Heater", {s1: "F(IN)", s2: "P(OUT)"}, {"SPEC_DATA": heat}),
        Block(f, "Flash2", {s2: "F(IN)", vap: "V(OUT)", liq: "L(OUT)"}, adiabatic_drum(pres)),
        Block(sp, "FSplit", {liq: "F(IN)", prg: "P(OUT)", rec: "P(OUT)"}, {"SPEC_DATA": split}),
    ]
    convergence = {
        "convergence": {
            "conv_options": {"tear_method": "WEGSTEIN", "tol": 1e-07, "weg_maxit": 200},
            "tear_data": [{"tear_stream_name": rec, "tear_stream_tol": 1e-07}],
        }
    }
    params = {"f": flow, "x": xs[0], "t": t_in, "p": p, "vf": vf, "purge": purge}
    return draft(
        "generated flash loop",
        cids,
        units,
        {fresh: data},
        text,
        targets,
        lang,
        "liquid_recycle",
        params,
        sections=convergence,
    )
