"""Single distillation columns: shortcut design (DSTWU) and rigorous rating (RadFrac) of a binary feed."""

from __future__ import annotations

import random

from aspen_rl.datagen.components import AQUEOUS_PAIRS, HYDROCARBON_PAIRS, names
from aspen_rl.datagen.drafts import (
    Draft,
    UnitStyle,
    block_ref,
    block_target,
    draft,
    family,
    feed_stream,
    flow_target,
    mole_fraction_target,
    mole_fractions,
    num,
    tr,
)
from aspen_rl.tasks.model import Difficulty
from simulator_mock.flowsheet.builders import Block, radfrac_data

COLUMN_PAIRS = HYDROCARBON_PAIRS + AQUEOUS_PAIRS[:3]


def _column_pressure(style: UnitStyle, p_atm: float) -> tuple[str, float, str]:
    """(text, value, unit) of a column pressure given in atm, in the style's unit."""
    text, spec = style.pressure_of(p_atm * 1.01325)
    return text, spec["PRES_VALUE"], spec["PRES_UNITS"]


@family(
    "column_dstwu", Difficulty.HARD, "shortcut column design (DSTWU) for key recoveries and a reflux factor"
)
def column_dstwu(rng: random.Random, lang: str) -> Draft:
    style = UnitStyle.draw(rng)
    light, heavy = cids = rng.choice(COLUMN_PAIRS)
    xs = mole_fractions(rng, 2)
    flow = float(rng.choice(range(50, 510, 10)))
    p_top = rng.choice([1.0, 1.2, 1.5])
    p_bot = round(p_top + rng.choice([0.0, 0.1, 0.2, 0.3]), 2)
    rec_l = rng.choice([0.95, 0.97, 0.98, 0.99, 0.995])
    rec_h = rng.choice([0.005, 0.01, 0.02, 0.03, 0.05])
    factor = rng.choice([1.2, 1.25, 1.3, 1.4, 1.5])
    column = rng.choice(["C1", "T1", "COL1", "DC1"])
    feed, dist, bot = rng.choice(
        [("FEED-1", "DIST-1", "BOT-1"), ("F-1", "D-1", "B-1"), ("S-1", "TOP-1", "BTM-1")]
    )
    feed_text, data = feed_stream(cids, xs, flow, 25.0, p_bot * 1.01325, style, lang, vfrac=0.0)
    top_text, top_value, top_unit = _column_pressure(style, p_top)
    bot_text, bot_value, bot_unit = _column_pressure(style, p_bot)
    targets = [
        block_target(column, "MIN_REFLUX", "", f"{column} minimum reflux ratio", f"{column} 的最小回流比"),
        block_target(
            column, "ACT_STAGES", "", f"{column} number of theoretical stages", f"{column} 的理论板数"
        ),
        block_target(column, "FEED_LOCATN", "", f"{column} feed stage", f"{column} 的进料板位置", rel=0.05),
        block_target(
            column, "REB_DUTY", "kW", f"{column} reboiler duty (kW)", f"{column} 的再沸器热负荷 (kW)"
        ),
    ]
    ref = block_ref("DSTWU", column, lang, "column", "精馏塔")
    ln, hn = names(cids, lang)
    text = tr(
        lang,
        f"Shortcut column design. Feed {feed}: {feed_text}. Design the {ref} for {num(100 * rec_l)} % "
        "recovery of "
        f"{ln} (light key) in the distillate {dist} and {num(100 * rec_h)} % of the {hn} (heavy key) in "
        f"{dist} "
        f"(bottoms {bot}), total condenser at {top_text}, reboiler at {bot_text}, reflux ratio {factor:g} "
        "times "
        "the minimum.",
        f"简捷法精馏塔设计。进料 {feed}：{feed_text}。用{ref}设计：轻关键组分{ln}在馏出物 {dist} 中的回收率 "
        f"{num(100 * rec_l)} %，重关键组分{hn}进入 {dist} 的比例 {num(100 * rec_h)} %（塔釜 {bot}），"
        "全凝器压力 "
        ""
        f"{top_text}，再沸器压力 {bot_text}，回流比为最小回流比的 {factor:g} 倍。",
    )
    spec = {
        "OPT_NTRR": "RR",
        "RR": -factor,
        "PTOP": top_value,
        "PTOP_UNITS": top_unit,
        "PBOT": bot_value,
        "PBOT_UNITS": bot_unit,
        "OPT_RDV": "LIQUID",
        "LIGHTKEY": light,
        "RECOVL": rec_l,
        "HEAVYKEY": heavy,
        "RECOVH": rec_h,
    }
    unit = Block(column, "DSTWU", {feed: "F(IN)", dist: "D(OUT)", bot: "B(OUT)"}, {"SPEC_DATA": spec})
    params = {"f": flow, "x": xs[0], "p": (p_top, p_bot), "rec": (rec_l, rec_h), "rr": factor}
    return draft("generated DSTWU column", cids, [unit], {feed: data}, text, targets, lang, "rr", params)


@family(
    "column_radfrac", Difficulty.HARD, "rigorous column (RadFrac): stages, feed stage, reflux and D/F given"
)
def column_radfrac(rng: random.Random, lang: str) -> Draft:
    style = UnitStyle.draw(rng)
    light, _heavy = cids = rng.choice(COLUMN_PAIRS)
    xs = mole_fractions(rng, 2)
    flow = float(rng.choice(range(50, 510, 10)))
    stages = rng.choice(range(12, 32, 2))
    feed_stage = stages // 2 + rng.choice([-2, -1, 0, 1, 2])
    reflux = rng.choice([1.5, 2.0, 2.5, 3.0, 3.5, 4.0])
    df = round(xs[0] * rng.choice([0.8, 0.85, 0.9, 0.95]), 3)
    p_top = rng.choice([1.0, 1.2, 1.5])
    column = rng.choice(["C1", "T1", "COL1"])
    feed, dist, bot = rng.choice(
        [("FEED-1", "DIST-1", "BOT-1"), ("F-1", "D-1", "B-1"), ("S-1", "TOP-1", "BTM-1")]
    )
    feed_text, data = feed_stream(cids, xs, flow, 25.0, p_top * 1.01325, style, lang, vfrac=0.0)
    top_text, top_value, top_unit = _column_pressure(style, p_top)
    targets = [
        block_target(
            column, "REB_DUTY", "kW", f"{column} reboiler duty (kW)", f"{column} 的再沸器热负荷 (kW)"
        ),
        block_target(
            column, "COND_DUTY", "kW", f"{column} condenser duty (kW)", f"{column} 的冷凝器热负荷 (kW)"
        ),
        mole_fraction_target(dist, light),
        flow_target(bot, 0.02),
    ]
    ref = block_ref("RadFrac", column, lang, "column", "精馏塔")
    text = tr(
        lang,
        f"Rigorous column rating. Feed {feed}: {feed_text}. The {ref} has {stages} stages (total condenser = "
        f"stage 1, kettle reboiler = stage {stages}), {feed} fed above stage {feed_stage}, condenser at "
        f"{top_text} with no pressure drop, molar reflux ratio {reflux:g} and distillate-to-feed ratio "
        f"{df:g}; "
        f"distillate {dist}, bottoms {bot}.",
        f"精馏塔严格核算。进料 {feed}：{feed_text}。"
        f"{ref}共 {stages} 块理论板（全凝器为第 1 块，釜式再沸器为第 "
        ""
        f"{stages} 块），{feed} 从第 {feed_stage} 块板上方进料，冷凝器压力 {top_text}、无压降，摩尔回流比 "
        f"{reflux:g}，"
        f"馏出物与进料摩尔比 {df:g}；馏出物 {dist}，塔釜 {bot}。",
    )
    block = radfrac_data(
        stages, feed_stage, reflux, df, (feed, dist, bot), top_pressure=(top_value, top_unit)
    )
    unit = Block(column, "RadFrac", {feed: "F(IN)", dist: "LD(OUT)", bot: "B(OUT)"}, block)
    params = {"f": flow, "x": xs[0], "n": stages, "fs": feed_stage, "rr": reflux, "df": df, "p": p_top}
    return draft(
        "generated RadFrac column", cids, [unit], {feed: data}, text, targets, lang, "rating", params
    )
