"""MCompr: multi-stage compressor with intercoolers (isentropic stages)."""

from __future__ import annotations

from typing import Any, ClassVar

from simulator_mock.errors import InfeasibleSpecificationError, SpecificationError, UnsupportedOptionError
from simulator_mock.flowsheet.blocks.base import Block, Cardinality
from simulator_mock.flowsheet.result_sheet import (
    GRAVITY,
    LENGTH,
    POWER,
    PRESSURE,
    TEMPERATURE,
    VOLUME_FLOW,
    BlockView,
    Rows,
)
from simulator_mock.flowsheet.schema_fields import (
    PRES_UNITS,
    STREAM_KEY,
    TEMP_UNITS,
    block_entry,
    num,
    section,
    string,
    units,
)
from simulator_mock.flowsheet.streams import Stream, phase_stream
from simulator_mock.properties.units import from_si, to_si

#: Aspen's defaults where the config gives no value (COMPR-SPECS SEFF, MEFF)
DEFAULT_SEFF = 0.72
DEFAULT_MEFF = 1.0

#: The part's description: the class ``description`` (also listed in the base part) with the knock-out streams
PART_DESCRIPTION = "Multi-stage compressor: isentropic stages, each followed by an intercooler at a given outlet temperature; the liquid of a chosen stage's intercooler drum can leave by a knock-out stream. Ports: F(IN) one or more; P(OUT) the gas product, plus at most one liquid knock-out stream per stage (PROD_STAGE, PROD_PHASE)."  # noqa: E501

#: fields of the real part the mock does not simulate, with the reason given in UnsupportedOption
_REFUSED = {
    "GLOBAL": "global knock-out streams are not simulated (the meaning of the integer the service writes to GLOBAL\\<stream> is not verified); give each knock-out stream its own stage with PROD_STAGE",  # noqa: E501
    "FEED_STAGE": "every feed enters stage 1",
    "TEMP_VALUE": "the block-level temperature is not simulated; give intercooler outlet temperatures per stage (TEMP)",  # noqa: E501
    "TYPE_STG": "stage-wise model types are not simulated (TYPE applies to every stage)",
    "CALC_SPEED": "performance curves are not simulated",
    "GPSA_BASIS": "the GPSA method is not simulated",
    "CPR_METHOD": "only the rigorous isentropic method is simulated",
    "CLFR": "cooler liquid fractions are not simulated",
    "CL_TEMP": "not simulated; give intercooler outlet temperatures with TEMP",
    "COOLER_UTL": "utilities are not simulated",
    "SPECS_UTL": "utilities are not simulated",
    "DELP": "per-stage pressure increases are not simulated; use PRATIO or C_S_PRES",
    "DUTY": "intercooler duties are not simulated; use TEMP",
    "POWER": "per-stage power specifications are not simulated; use PRATIO or C_S_PRES",
    "TRATIO": "intercooler temperature ratios are not simulated; use TEMP",
    "PEFF": "polytropic efficiencies are not simulated (TYPE ISENTROPIC)",
    "PDROP": "intercooler pressure drops are not simulated (coolers keep the stage's discharge pressure)",
    "OPT_CLFR": "cooler options are not simulated",
    "OPT_CLSPEC": "cooler options are not simulated",
    "OPT_CSPEC": "not read: the stage specification is the field given (PRATIO or C_S_PRES)",
    "OPT_TEMP": "not read: a stage's cooler is specified by TEMP",
}


class MCompr(Block):
    """Multi-stage compressor (Aspen ``MCompr``): isentropic stages, each followed by an intercooler.

    Stage discharge pressures come either from the final discharge pressure ``PRES_VALUE`` (Aspen's "fix
    discharge conditions from last stage": equal pressure ratios, r = (P_out / P_in)^(1/N)) or from a
    per-stage ``PRATIO`` or ``C_S_PRES`` for every stage. Each stage is an isentropic compression with
    efficiency ``SEFF`` (Aspen's default 0.72) and mechanical efficiency ``MEFF`` (default 1). A stage's
    cooler brings the gas to ``TEMP`` at the stage's discharge pressure; a stage without ``TEMP`` has no
    cooling (zero duty).

    Liquid knock-out (Aspen's product streams from the intercooler drums): every product stream is on
    ``P(OUT)``; ``PROD_STAGE`` gives a stream's stage and ``PROD_PHASE`` its phase (``L`` liquid, ``V``
    vapour). A liquid stream of stage k takes all the liquid present after stage k's cooler, and only the
    gas goes on to stage k + 1. The gas product is the one ``P(OUT)`` stream without a stage (or at stage
    NSTAGE in phase V). Where no knock-out stream is assigned, condensate stays with the gas (a warning
    says so when it reaches the next stage).
    """

    type_name = "MCompr"
    description = "Multi-stage compressor: isentropic stages, each followed by an intercooler at a given outlet temperature. Ports: F(IN) one or more, P(OUT) one or more (the gas product, and liquid knock-out streams placed by PROD_STAGE)."  # noqa: E501
    not_written: ClassVar[dict[str, str]] = {}
    # the gas product and any liquid knock-out streams (sorted by PROD_STAGE / PROD_PHASE in parse)
    outlet_ports: ClassVar[dict[str, Cardinality]] = {"P(OUT)": (1, None)}

    def parse(self, data: dict[str, Any]) -> None:
        spec = data["SPEC_DATA"]
        where = f"{self.where}.SPEC_DATA"
        for key, reason in _REFUSED.items():
            if spec.get(key) not in (None, "", [], {}):
                raise UnsupportedOptionError(f"{where}.{key}: {reason}")
        if spec.get("TYPE", "ISENTROPIC") != "ISENTROPIC":
            raise UnsupportedOptionError(f"{where}.TYPE: {spec['TYPE']} is not simulated; use ISENTROPIC")
        n = int(spec["NSTAGE"])
        self.n = n
        keys = [str(k) for k in range(1, n + 1)]

        def per_stage(name: str) -> dict[str, Any]:
            table = spec.get(name) or {}
            for key in table:
                if key not in keys:
                    raise SpecificationError(f"{where}.{name}.{key}: no such stage (NSTAGE {n})")
            return table

        ratios, pressures = per_stage("PRATIO"), per_stage("C_S_PRES")
        self.stage_specs: list[tuple[str, float]] = []
        if ratios or pressures:
            if spec.get("PRES_VALUE") is not None:
                raise SpecificationError(
                    f"{where}.PRES_VALUE: give either the final discharge pressure or per-stage PRATIO / "
                    "C_S_PRES, not both"
                )
            for key in keys:
                if (key in ratios) == (key in pressures):
                    raise SpecificationError(
                        f"{where}: stage {key} needs exactly one of PRATIO.{key} and C_S_PRES.{key}"
                    )
                if key in ratios:
                    r = float(ratios[key])
                    if r <= 1.0:
                        raise SpecificationError(f"{where}.PRATIO.{key}: {r:g} must be > 1")
                    self.stage_specs.append(("ratio", r))
                else:
                    e = pressures[key]
                    p = to_si(
                        float(e["C_S_PRES_VALUE"]),
                        e.get("C_S_PRES_UNITS"),
                        "pressure",
                        f"{where}.C_S_PRES.{key}",
                    )
                    self.stage_specs.append(("pressure", p))
            self.P_final = None
        else:
            if spec.get("PRES_VALUE") is None:
                raise SpecificationError(
                    f"{where}.PRES_VALUE: give the final discharge pressure or a PRATIO / C_S_PRES per stage"
                )
            self.P_final = to_si(
                float(spec["PRES_VALUE"]), spec.get("PRES_UNITS"), "pressure", f"{where}.PRES_UNITS"
            )
        seff, meff, temps = per_stage("SEFF"), per_stage("MEFF"), per_stage("TEMP")
        self.seff = [float(seff.get(k, DEFAULT_SEFF)) for k in keys]
        self.meff = [float(meff.get(k, DEFAULT_MEFF)) for k in keys]
        for stage, (s, m) in enumerate(zip(self.seff, self.meff, strict=True), start=1):
            if not (0.0 < s <= 1.0 and 0.0 < m <= 1.0):
                raise SpecificationError(f"{where}: stage {stage} efficiencies must be within (0, 1]")
        self.cooler_T: list[float | None] = []
        for k in keys:
            e = temps.get(k)
            self.cooler_T.append(
                None
                if e is None
                else to_si(float(e["TEMP_VALUE"]), e.get("TEMP_UNITS"), "temperature", f"{where}.TEMP.{k}")
            )
        self._parse_products(spec, where)

    def _parse_products(self, spec: dict[str, Any], where: str) -> None:
        """Sort the ``P(OUT)`` streams into the gas product and the knock-out stream of each stage.

        Sets ``gas_name`` and ``knockouts`` (0-based stage index -> stream name).
        """
        outlets = list(self.outlets.get("P(OUT)", []))
        listed = ", ".join(outlets)

        def product(field: str, i: int, item: dict[str, Any]) -> str:
            stream = str(item[field])
            if stream not in outlets:
                raise SpecificationError(
                    f"{where}.{field}[{i}].{field}: {stream!r} is not a P(OUT) stream of block {self.name} "
                    f"(P(OUT): {listed})"
                )
            return stream

        stages: dict[str, int] = {}
        for i, item in enumerate(spec.get("PROD_STAGE") or []):
            stream = product("PROD_STAGE", i, item)
            at = f"{where}.PROD_STAGE[{i}]"
            if stream in stages:
                raise SpecificationError(f"{at}.PROD_STAGE: {stream} is given a stage twice")
            stage = int(item["PROD_STREAM_VALUE"])
            if not 1 <= stage <= self.n:
                raise SpecificationError(
                    f"{at}.PROD_STREAM_VALUE: stage {stage} of {stream} does not exist (NSTAGE {self.n})"
                )
            given = item.get("PROD_STAGE_VALUE")
            if given not in (None, "") and int(given) != stage:
                self.ctx.warnings.append(
                    f"{at}.PROD_STAGE_VALUE: {given} is not written into Aspen by the service; {stream} "
                    f"leaves stage {stage} (PROD_STREAM_VALUE)"
                )
            stages[stream] = stage
        phases: dict[str, str] = {}
        for i, item in enumerate(spec.get("PROD_PHASE") or []):
            stream = product("PROD_PHASE", i, item)
            at = f"{where}.PROD_PHASE[{i}]"
            if stream in phases:
                raise SpecificationError(f"{at}.PROD_PHASE: {stream} is given a phase twice")
            phase = str(item["PROD_STREAM_VALUE"])
            if phase == "W":
                raise UnsupportedOptionError(
                    f"{at}.PROD_STREAM_VALUE: W (free water) is not simulated; a liquid knock-out (L) takes "
                    "all the condensate, water included"
                )
            phases[stream] = phase
        gas: list[str] = []
        self.knockouts: dict[int, str] = {}
        for stream in outlets:
            at_stage = stages.get(stream)
            phase = phases.get(stream, "L" if at_stage is not None and at_stage < self.n else "V")
            if phase == "V":
                if at_stage is not None and at_stage < self.n:
                    raise UnsupportedOptionError(
                        f"{where}.PROD_PHASE: {stream} is a vapour product of stage {at_stage}; only the gas "
                        f"leaving the last stage (NSTAGE {self.n}) is simulated as a vapour product"
                    )
                gas.append(stream)
                continue
            if at_stage is None:
                raise SpecificationError(
                    f"{where}.PROD_STAGE: the liquid knock-out stream {stream} has no stage; give it in "
                    "PROD_STAGE (PROD_STREAM_VALUE)"
                )
            if at_stage - 1 in self.knockouts:
                raise SpecificationError(
                    f"{where}.PROD_STAGE: stage {at_stage} has two liquid knock-out streams "
                    f"({self.knockouts[at_stage - 1]}, {stream}); one stream takes a drum's liquid"
                )
            self.knockouts[at_stage - 1] = stream
        if len(gas) != 1:
            found = (
                f"{len(gas)}: {', '.join(gas)} (no stage, or stage NSTAGE in phase V)"
                if gas
                else f"none among {listed}"
            )
            raise SpecificationError(
                f"{where}.PROD_STAGE: block {self.name} needs exactly one gas product on P(OUT), "
                f"found {found}; give each liquid knock-out stream its stage in PROD_STAGE (and PROD_PHASE L "
                "for one from the last stage's drum)"
            )
        self.gas_name = gas[0]

    def run(self, feeds: dict[str, list[Stream]]) -> dict[str, Stream]:
        feed = self.mixed(feeds["F(IN)"]).stream()
        name = self.gas_name
        P_in = feed.P
        if self.P_final is not None:
            if self.P_final <= P_in:
                raise SpecificationError(
                    f"{self.where}.SPEC_DATA.PRES_VALUE: discharge {self.P_final / 1e5:.6g} bar is not above the "  # noqa: E501
                    f"feed pressure {P_in / 1e5:.6g} bar"
                )
            r = (self.P_final / P_in) ** (1.0 / self.n)
            targets = [P_in * r**k for k in range(1, self.n + 1)]
            targets[-1] = self.P_final
        else:
            targets, P = [], P_in
            for kind, value in self.stage_specs:
                P = P * value if kind == "ratio" else value
                targets.append(P)
        if feed.empty:
            outlets = {name: Stream(name, feed.flows, feed.T, targets[-1], None)}
            for k, ko in self.knockouts.items():
                outlets[ko] = Stream(ko, feed.flows, feed.T, targets[k], None)
            return outlets
        current = feed
        knocked: dict[str, Stream] = {}
        stages, coolers = [], []
        work = heat = 0.0
        MWs = self.package.MWs
        for k in range(self.n):
            P_out = targets[k]
            if P_out <= current.P:
                raise SpecificationError(
                    f"{self.where}.SPEC_DATA: stage {k + 1} discharge {P_out / 1e5:.6g} bar is not above its "
                    f"inlet {current.P / 1e5:.6g} bar"
                )
            state = current.phase
            if state.VF < 1.0 - 1e-6:
                source = "the feed" if k == 0 else f"no knock-out stream takes stage {k}'s condensate"
                self.ctx.warnings.append(
                    f"block {self.name}: stage {k + 1} inlet contains liquid (vapor fraction {state.VF:.3g}; "
                    f"{source}): it is compressed with the gas"
                )
            ideal = self.flash(
                f"stage{k + 1}-isentropic",
                current.flows,
                f"stage {k + 1} isentropic outlet",
                P=P_out,
                S=state.S,
            )
            W_s = current.total * (ideal.phase.H - state.H)
            W = W_s / self.seff[k]
            after = self.flash(
                f"stage{k + 1}",
                current.flows,
                f"stage {k + 1} outlet",
                P=P_out,
                H=state.H + W / current.total,
            )
            mass = current.mass_flow(MWs)
            stages.append(
                {
                    "temperature_C": from_si(after.T, "temperature"),
                    "pressure_bar": from_si(P_out, "pressure"),
                    "pressure_ratio": P_out / current.P,
                    "indicated_power_kW": W / 1000.0,
                    "brake_power_kW": W / self.meff[k] / 1000.0,
                    "isentropic_power_kW": W_s / 1000.0,
                    "head_m": W_s / (mass * GRAVITY) if mass > 0 else None,
                    "inlet_volume_flow_m3_hr": current.total * state.V * 3600.0,
                }
            )
            work += W
            T_cool = self.cooler_T[k]
            knockout = self.knockouts.get(k)
            if knockout is not None:
                cooled, current, liquid = self._drum(k, current, after, T_cool, knockout)
                knocked[knockout] = liquid
            elif T_cool is None:
                cooled = after
            else:
                cooled = self.flash(
                    f"cooler{k + 1}", current.flows, f"cooler {k + 1} outlet", T=T_cool, P=P_out
                )
            Q = cooled.enthalpy_flow - after.enthalpy_flow
            heat += Q
            cooler: dict[str, Any] = {
                "temperature_C": from_si(cooled.T, "temperature"),
                "pressure_bar": from_si(cooled.P, "pressure"),
                "duty_kW": Q / 1000.0,
                "vapor_fraction": cooled.VF,
            }
            if knockout is None:
                current = cooled
            else:
                cooler["knockout_stream"] = knockout
                cooler["knockout_flow_kmol_hr"] = knocked[knockout].total * 3.6
                if current.empty and k < self.n - 1:
                    raise InfeasibleSpecificationError(
                        f"{self.where}.SPEC_DATA.PROD_STAGE: the gas condenses completely in stage {k + 1}'s "
                        f"cooler and leaves by {knockout}: nothing is left for stage {k + 2}"
                    )
            coolers.append(cooler)
        self.work, self.heat = work, heat
        self.report = {
            "stages": stages,
            "coolers": coolers,
            "brake_power_total_kW": sum(s["brake_power_kW"] for s in stages),
        }
        return {name: current.renamed(name), **knocked}

    def _drum(
        self, k: int, current: Stream, after: Stream, T_cool: float | None, knockout: str
    ) -> tuple[Stream, Stream, Stream]:
        """Stage ``k``'s cooler (outlet at ``T_cool``, or no cooling) and its knock-out drum: the cooler's
        outlet, the gas going on, and the liquid leaving by ``knockout``. The phases come from one
        equilibrium, so their enthalpies add up to the cooler outlet's."""
        total = current.total
        where = f"block {self.name} cooler {k + 1} knock-out drum"
        spec = {"T": T_cool, "P": after.P} if T_cool is not None else {"P": after.P, "H": after.phase.H}
        bulk, vapor, liquid = self.package.flash_split(current.flows / total, where, **spec)
        V = total * bulk.VF
        cooled = Stream(f"cooler{k + 1}", current.flows, bulk.T, bulk.P, bulk)
        n = current.flows.size
        return (
            cooled,
            phase_stream(f"stage{k + 1}-gas", vapor, V, bulk, n),
            phase_stream(knockout, liquid, total - V, bulk, n),
        )

    def primary_outlet(self, outlets: dict[str, Stream]) -> Stream | None:
        """The gas product (knock-out streams are also on P(OUT))."""
        return outlets.get(self.gas_name)

    @classmethod
    def schema_part(cls) -> dict[str, Any]:

        def table(desc: str, value: dict[str, Any]) -> dict[str, Any]:
            return {
                "type": "object",
                "description": desc + ' Keyed by stage number as a string ("1" .. NSTAGE).',
                "additionalProperties": value,
            }

        def refused(key: str) -> dict[str, Any]:
            return {
                "description": f"Not simulated by the mock (UnsupportedOption when non-empty): {_REFUSED[key]}."  # noqa: E501
            }

        props: dict[str, Any] = {key: refused(key) for key in _REFUSED}
        props.update(
            {
                "NSTAGE": {
                    "type": "integer",
                    "minimum": 1,
                    "maximum": 20,
                    "description": "Number of compression stages.",
                },
                "TYPE": string(
                    "Compressor model: ISENTROPIC (simulated); POLYTROPIC and POS-DISPLACE are refused.",
                    ["ISENTROPIC", "POLYTROPIC", "POS-DISPLACE"],
                ),
                "OPT_SPEC": string(
                    "Aspen's specification type. The mock takes the specification from the fields given (PRES_VALUE: the last stage's discharge with equal stage pressure ratios; otherwise PRATIO or C_S_PRES for every stage) and does not read this field."  # noqa: E501
                ),
                "PRES_VALUE": num(
                    "Discharge pressure of the last stage (absolute, > 0), in PRES_UNITS. The stages share one pressure ratio (P_out / P_in)^(1/NSTAGE).",  # noqa: E501
                    exclusiveMinimum=0,
                ),
                "PRES_UNITS": units("PRES_VALUE", PRES_UNITS),
                "PRATIO": table("Stage pressure ratio (> 1).", {"type": "number", "exclusiveMinimum": 1}),
                "C_S_PRES": table(
                    "Stage discharge pressure.",
                    {
                        "type": "object",
                        "properties": {
                            "C_S_PRES_VALUE": num("Absolute pressure (> 0).", exclusiveMinimum=0),
                            "C_S_PRES_UNITS": units("C_S_PRES_VALUE", PRES_UNITS),
                        },
                        "required": ["C_S_PRES_VALUE", "C_S_PRES_UNITS"],
                    },
                ),
                "SEFF": table(
                    f"Stage isentropic efficiency (0..1]; Aspen's default {DEFAULT_SEFF}.",
                    {"type": "number", "exclusiveMinimum": 0, "maximum": 1},
                ),
                "MEFF": table(
                    f"Stage mechanical efficiency (0..1]; default {DEFAULT_MEFF}.",
                    {"type": "number", "exclusiveMinimum": 0, "maximum": 1},
                ),
                "PROD_STAGE": {
                    "type": "array",
                    "description": "Stage of product streams on P(OUT) (Aspen's PROD_STAGE\\<stream>): a liquid product of stage k takes all the liquid in stage k's intercooler drum (a knock-out) and only the gas goes on to stage k + 1. The gas product is the P(OUT) stream without an entry (or the one at stage NSTAGE in phase V). Quirk: the service writes PROD_STREAM_VALUE, the stage number despite its name, and never writes PROD_STAGE_VALUE.",  # noqa: E501
                    "items": {
                        "type": "object",
                        "properties": {
                            "PROD_STAGE": string(
                                "Name of the product stream (one of this block's P(OUT) streams).",
                                pattern=STREAM_KEY,
                            ),
                            "PROD_STAGE_VALUE": {
                                "type": "integer",
                                "description": "Not written into Aspen by the service (its extractor fills it with the PROD_STAGE node's own value); ignored, with a warning when it differs from PROD_STREAM_VALUE.",  # noqa: E501
                            },
                            "PROD_STREAM_VALUE": {
                                "type": "integer",
                                "minimum": 1,
                                "maximum": 20,
                                "description": "Stage number (1..NSTAGE) whose intercooler drum the stream leaves.",  # noqa: E501
                            },
                        },
                        "required": ["PROD_STAGE", "PROD_STREAM_VALUE"],
                    },
                },
                "PROD_PHASE": {
                    "type": "array",
                    "description": "Phase of product streams on P(OUT) (Aspen's PROD_PHASE\\<stream>). Default: L for a stream with a stage below NSTAGE, V otherwise. Quirk: the service writes PROD_STREAM_VALUE, the phase keyword despite its name, and never writes PROD_PHASE_VALUE.",  # noqa: E501
                    "items": {
                        "type": "object",
                        "properties": {
                            "PROD_PHASE": string(
                                "Name of the product stream (one of this block's P(OUT) streams).",
                                pattern=STREAM_KEY,
                            ),
                            "PROD_PHASE_VALUE": string("Not written into Aspen by the service; ignored."),
                            "PROD_STREAM_VALUE": string(
                                "L: liquid knock-out (all the liquid of the stage's drum, water included); V: the gas product, only from stage NSTAGE; W (free water) is refused (UnsupportedOption).",  # noqa: E501
                                ["L", "V", "W"],
                            ),
                        },
                        "required": ["PROD_PHASE", "PROD_STREAM_VALUE"],
                    },
                },
                "TEMP": table(
                    "Outlet temperature of the stage's intercooler (at the stage's discharge pressure). A stage without one has no cooling.",  # noqa: E501
                    {
                        "type": "object",
                        "properties": {
                            "TEMP_VALUE": num("Cooler outlet temperature."),
                            "TEMP_UNITS": units("TEMP_VALUE", TEMP_UNITS),
                        },
                        "required": ["TEMP_VALUE", "TEMP_UNITS"],
                    },
                ),
            }
        )
        spec = {
            "type": "object",
            "description": "Stages, discharge pressure (last stage, or per stage), efficiencies, intercooler temperatures and liquid knock-out streams.",  # noqa: E501
            "properties": props,
            "required": ["NSTAGE"],
        }
        return section(
            "MCompr", PART_DESCRIPTION, block_entry({"SPEC_DATA": spec}, ["SPEC_DATA"], closed=False)
        )

    @staticmethod
    def result_rows(b: BlockView, rows: Rows) -> None:
        """The rows of this block's ``<BLOCK>_result`` sheet (Aspen output names, with units)."""
        d = b.doc
        stages, coolers = d.get("stages", []), d.get("coolers", [])
        brake = d.get("brake_power_total_kW")
        duty = d.get("duty_kW")
        rows.add("B_PRES2", d.get("outlet_pressure_bar"), PRESSURE)
        rows.add("QCALC2", brake, POWER)
        rows.add("DUTY_OUT", duty, POWER)
        rows.add("WNET", brake, POWER)
        rows.add("QNET", duty, POWER)
        for k, s in enumerate(stages, start=1):
            rows.add(f"B_TEMP_{k}", s["temperature_C"], TEMPERATURE)
            rows.add(f"B_PRES_{k}", s["pressure_bar"], PRESSURE)
            rows.add(f"PRES_RATIO_{k}", s["pressure_ratio"])
            rows.add(f"IND_POWER_{k}", s["indicated_power_kW"], POWER)
            rows.add(f"BRAKE_POWER_{k}", s["brake_power_kW"], POWER)
            rows.add(f"HEAD_CAL_{k}", s["head_m"], LENGTH)
            rows.add(f"VFLOW_{k}", s["inlet_volume_flow_m3_hr"], VOLUME_FLOW)
        for k, c in enumerate(coolers, start=1):
            rows.add(f"COOL_TEMP_{k}", c["temperature_C"], TEMPERATURE)
            rows.add(f"COOL_PRES_{k}", c["pressure_bar"], PRESSURE)
            rows.add(f"QCALC_{k}", c["duty_kW"], POWER)
            rows.add(f"B_VFRAC_{k}", c["vapor_fraction"])
