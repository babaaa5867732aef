"""Every kind of bad input: success false, an error_type and a message naming the culprit, never a 5xx."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from fastapi.testclient import TestClient

from simulator_mock import SimulationError, run_config
from simulator_mock.examples import column, flash_drum, heater, pump, recycle, shortcut_column, valve
from simulator_mock.flowsheet.builders import MIXER_DEFAULTS, feed

Mutation = Callable[[dict[str, Any]], None]


def _set(path: str, value: Any) -> Mutation:
    def mutate(config: dict[str, Any]) -> None:
        *parents, last = path.split("/")
        node = config
        for key in parents:
            node = node[int(key)] if isinstance(node, list) else node[key]
        node[int(last) if isinstance(node, list) else last] = value

    return mutate


def _drop(path: str) -> Mutation:
    def mutate(config: dict[str, Any]) -> None:
        *parents, last = path.split("/")
        node = config
        for key in parents:
            node = node[key]
        del node[last]

    return mutate


FEED_T = "stream_data/FEED-1/temperature/TEMP_VALUE"
H1_SPEC = "blocks_Heater_data/H1/SPEC_DATA"

# (case, base config, mutation, error_type, status, words the message must contain)
CASES: list[tuple[str, Callable[[], dict[str, Any]], Mutation, str, int, list[str]]] = [
    (
        "unknown component",
        heater,
        _set("components/0", {"cid": "X", "name": "Ux", "cas_number": "", "database_name": "unobtainium"}),
        "UnknownComponent",
        400,
        ["X", "unobtainium"],
    ),
    (
        "unknown CAS number",
        heater,
        _set("components/0", {"cid": "WATER", "name": "", "cas_number": "1234-56-7", "database_name": ""}),
        "UnknownComponent",
        400,
        ["1234-56-7"],
    ),
    (
        "unknown property method",
        heater,
        _set("property_methods/0/method_name", "SUPERTRAPP"),
        "UnknownPropertyMethod",
        400,
        ["method_name", "SUPERTRAPP"],
    ),
    (
        "two basis methods",
        heater,
        _set(
            "property_methods",
            [
                {"method_name": "NRTL", "is_basis_method": True},
                {"method_name": "IDEAL", "is_basis_method": True},
            ],
        ),
        "UnknownPropertyMethod",
        400,
        ["is_basis_method"],
    ),
    (
        "stream to a missing block",
        heater,
        _set("block_connections/H9", {"FEED-1": "F(IN)"}),
        "UnknownBlock",
        400,
        ["H9"],
    ),
    (
        "undeclared stream",
        heater,
        _set("block_connections/H1/GHOST-1", "P(OUT)"),
        "UnknownStream",
        400,
        ["GHOST-1"],
    ),
    (
        "missing port",
        heater,
        _set("block_connections/H1/PROD-1", "V(OUT)"),
        "UnknownPort",
        400,
        ["H1", "V(OUT)", "P(OUT)"],
    ),
    (
        "block without outlet",
        heater,
        _set("block_connections/H1", {"FEED-1": "F(IN)"}),
        "BlockWithoutOutlet",
        400,
        ["H1"],
    ),
    (
        "flash drum without liquid outlet",
        flash_drum,
        _drop("block_connections/F1/LIQ-1"),
        "MissingPort",
        400,
        ["F1", "L(OUT)"],
    ),
    (
        "feed without stream_data",
        heater,
        _set("stream_data", {}),
        "MissingStreamData",
        400,
        ["FEED-1", "stream_data"],
    ),
    (
        "stream_data of a missing stream",
        heater,
        _set("stream_data/NOPE-1", feed(25.0, 1.0, {"WATER": 1.0})),
        "UnknownStream",
        400,
        ["NOPE-1"],
    ),
    (
        "unconnected stream",
        heater,
        _set("streams", ["FEED-1", "PROD-1", "LOST-1"]),
        "UnconnectedStream",
        400,
        ["LOST-1"],
    ),
    (
        "duplicate block",
        heater,
        _set("blocks", [{"name": "H1", "type": "Heater"}, {"name": "H1", "type": "Mixer"}]),
        "DuplicateName",
        400,
        ["H1"],
    ),
    (
        "negative component flow",
        heater,
        _set("stream_data/FEED-1/flow/WATER/FLOW_VALUE", -5.0),
        "SchemaValidationError",
        400,
        ["stream_data.FEED-1.flow.WATER.FLOW_VALUE", "minimum"],
    ),
    (
        "negative total flow",
        heater,
        _set(
            "stream_data/FEED-1/flow",
            {
                "FLOWBASE": "MOLE",
                "TOTFLOW_VALUE": -1,
                "TOTFLOW_UNITS": "kmol/hr",
                "BASIS": "MOLE-FRAC",
                "WATER": {"FLOW_VALUE": 1, "FLOW_UNITS": "", "FLOW_BASIS": "MOLE-FRAC"},
            },
        ),
        "InvalidSpecification",
        400,
        ["TOTFLOW_VALUE"],
    ),
    (
        "zero flow",
        heater,
        _set("stream_data/FEED-1/flow/WATER/FLOW_VALUE", 0.0),
        "InvalidSpecification",
        400,
        ["stream_data.FEED-1.flow"],
    ),
    (
        "unknown component in a feed",
        heater,
        _set(
            "stream_data/FEED-1/flow/ETOH",
            {"FLOW_VALUE": 1.0, "FLOW_UNITS": "kmol/hr", "FLOW_BASIS": "MOLE-FLOW"},
        ),
        "UnknownComponent",
        400,
        ["stream_data.FEED-1.flow.ETOH"],
    ),
    (
        "NaN",
        heater,
        _set(FEED_T, float("nan")),
        "InvalidNumber",
        400,
        ["stream_data.FEED-1.temperature.TEMP_VALUE"],
    ),
    (
        "infinity",
        heater,
        _set(f"{H1_SPEC}/TEMP_VALUE", float("inf")),
        "InvalidNumber",
        400,
        ["blocks_Heater_data.H1.SPEC_DATA.TEMP_VALUE"],
    ),
    (
        "unknown unit",
        heater,
        _set("stream_data/FEED-1/pressure/PRES_UNITS", "bara"),
        "UnknownUnit",
        400,
        ["PRES_UNITS", "bara"],
    ),
    (
        "unknown duty unit",
        heater,
        _set(
            H1_SPEC,
            {"SPEC_OPT": "PD", "PRES_VALUE": 1, "PRES_UNITS": "bar", "DUTY_VALUE": 5, "DUTY_UNITS": "BTU"},
        ),
        "UnknownUnit",
        400,
        ["DUTY_UNITS"],
    ),
    (
        "below absolute zero",
        heater,
        _set(FEED_T, -300.0),
        "OutOfPhysicalBounds",
        400,
        ["FEED-1", "temperature"],
    ),
    (
        "heater far too hot",
        heater,
        _set(f"{H1_SPEC}/TEMP_VALUE", 5000.0),
        "OutOfPhysicalBounds",
        400,
        ["H1", "temperature"],
    ),
    (
        "pressure drop above inlet pressure",
        heater,
        _set(f"{H1_SPEC}/PRES_VALUE", -3.0),
        "OutOfPhysicalBounds",
        400,
        ["H1", "PRES_VALUE"],
    ),
    (
        "vapor fraction above one",
        heater,
        _set(H1_SPEC, {"SPEC_OPT": "PV", "PRES_VALUE": 1, "PRES_UNITS": "bar", "VFRAC_VALUE": 1.5}),
        "SchemaValidationError",
        400,
        ["VFRAC_VALUE"],
    ),
    (
        "zero pressure",
        heater,
        _set("stream_data/FEED-1/pressure/PRES_VALUE", 0),
        "OutOfPhysicalBounds",
        400,
        ["FEED-1", "pressure"],
    ),
    (
        "missing block spec",
        heater,
        _drop("blocks_Heater_data"),
        "InvalidSpecification",
        400,
        ["H1", "blocks_Heater_data"],
    ),
    (
        "spec for a block of another type",
        heater,
        _set("blocks_Mixer_data", {"H1": {"SPEC_DATA": MIXER_DEFAULTS}}),
        "InvalidSpecification",
        400,
        ["blocks_Mixer_data.H1"],
    ),
    (
        "unsupported block type",
        heater,
        _set("blocks/0/type", "RGibbs"),
        "UnsupportedBlockType",
        400,
        ["RGibbs"],
    ),
    (
        "valve raising the pressure",
        valve,
        _set("blocks_Valve_data/V1/JOB_DATA/P_OUT_VALUE", 10),
        "InfeasibleSpecification",
        422,
        ["V1", "above the inlet"],
    ),
    ("pump fed with vapour", pump, _set(FEED_T, 150.0), "InfeasibleSpecification", 422, ["P1", "vapour"]),
    (
        "reflux below minimum",
        shortcut_column,
        _set("blocks_DSTWU_data/C1/SPEC_DATA/RR", 0.5),
        "InfeasibleSpecification",
        422,
        ["RR", "minimum"],
    ),
    (
        "distillate above feed",
        column,
        _set(
            "blocks_RadFrac_data/C1/CONFIG_DATA/OP_SPEC/1",
            {"BASIS_D_VALUE": 500, "BASIS_D_UNITS": "kmol/hr", "BASIS_D_BASIS": "MOLE"},
        ),
        "InfeasibleSpecification",
        422,
        ["C1", "distillate"],
    ),
    (
        "column feed without a stage",
        column,
        _set("blocks_RadFrac_data/C1/FEED_STAGE_DATA/0/FEED_STAGE", "OTHER"),
        "InvalidSpecification",
        400,
        ["OTHER", "C1"],
    ),
    (
        "closed loop, no feed, no product",
        heater,
        lambda c: (
            c["blocks"].append({"name": "H2", "type": "Heater"}),
            c["block_connections"].update({"H2": {"PROD-1": "F(IN)", "FEED-1": "P(OUT)"}}),
            c["blocks_Heater_data"].update({"H2": c["blocks_Heater_data"]["H1"]}),
        ),
        "NoFeedStream",
        400,
        ["no feed stream", "FEED-1 (H2 -> H1)", "PROD-1 (H1 -> H2)", "stream_data is given for FEED-1"],
    ),
    (
        "loop with a feed but no product",
        heater,
        lambda c: (
            c["streams"].append("BACK-1"),
            c["blocks"].append({"name": "M", "type": "Mixer"}),
            c["block_connections"]["H1"].update({"BACK-1": "F(IN)"}),
            c["block_connections"].update({"M": {"PROD-1": "F(IN)", "BACK-1": "P(OUT)"}}),
        ),
        "NoProductStream",
        400,
        ["no product stream", "PROD-1 (H1 -> M)", "BACK-1 (M -> H1)"],
    ),
    (
        "recycle cap too low",
        recycle,
        _set("convergence/conv_options/weg_maxit", 2),
        "NotConverged",
        422,
        ["RCY-1"],
    ),
]


@pytest.mark.parametrize(
    ("case", "base", "mutate", "error_type", "status", "words"), CASES, ids=[c[0] for c in CASES]
)
def test_bad_config(
    case: str,
    base: Callable[[], dict[str, Any]],
    mutate: Mutation,
    error_type: str,
    status: int,
    words: list[str],
) -> None:
    config = base()
    mutate(config)
    with pytest.raises(SimulationError) as info:
        run_config(config)
    error = info.value
    assert (error.error_type, error.status) == (error_type, status), error.message
    for word in words:
        assert word in error.message, (word, error.message)


@pytest.mark.parametrize(
    ("body", "error_code"),
    [
        (b"{", "MalformedJSON"),
        (b"[1, 2]", "MalformedJSON"),
        (b"\xff\xfe{}", "MalformedJSON"),
        (b'{"components": NaN}', "InvalidNumber"),
        (b"[" * 100_000 + b"]" * 100_000, "MalformedJSON"),
        (b'{"components": ' + b"9" * 5000 + b"}", "MalformedJSON"),  # over Python's 4300-digit limit
        (b'{"components": ' + b"9" * 400 + b"}", "InvalidNumber"),  # readable, but beyond any float
    ],
)
def test_bad_bodies_over_http(inproc: TestClient, body: bytes, error_code: str) -> None:
    """The real service answers a config it cannot write with HTTP 201 and success false."""
    response = inproc.post(
        "/run-aspen-simulation", content=body, headers={"content-type": "application/json"}
    )
    assert response.status_code == 201
    answer = response.json()
    assert answer["success"] is False
    assert (answer["error_type"], answer["error_code"]) == ("模拟配置写入失败", error_code)
    assert answer["error_message"].startswith(f"{error_code}: ")


@pytest.mark.parametrize("body", [b"", b"{}", b"[]", b"null", b"0", b'""', b"false"])
def test_empty_bodies_are_400_with_the_real_error_key(inproc: TestClient, body: bytes) -> None:
    """The real service's `if not config` check: any falsy JSON body is 400 {"error": ...}, no files."""
    response = inproc.post("/run-aspen-simulation", content=body)
    assert response.status_code == 400
    assert list(response.json()) == ["error"]


def test_http_status_follows_the_error(inproc: TestClient) -> None:
    config = valve()
    config["blocks_Valve_data"]["V1"]["JOB_DATA"]["P_OUT_VALUE"] = 10
    response = inproc.post("/run-aspen-simulation", json=config)
    assert response.status_code == 201
    assert (response.json()["error_type"], response.json()["error_code"]) == (
        "模拟运行过程发生错误",
        "InfeasibleSpecification",
    )
    response = inproc.post("/run-aspen-simulation", content=b'{"a": Infinity}')
    assert response.status_code == 201
    answer = response.json()
    assert (answer["error_type"], answer["error_code"]) == ("模拟配置写入失败", "InvalidNumber")
    assert "a:" in response.json()["error_message"]


@pytest.mark.parametrize("method", ["IDEAL", "NRTL", "UNIFAC", "PENG-ROB"])
@pytest.mark.parametrize(
    ("spec", "words"),
    [
        (
            {"SPEC_OPT": "PV", "PRES_VALUE": 300, "PRES_UNITS": "bar", "VFRAC_VALUE": 0.5},
            ["300 bar", "220.64 bar"],
        ),
        (
            {"SPEC_OPT": "PV", "PRES_VALUE": 221, "PRES_UNITS": "bar", "VFRAC_VALUE": 0.0},
            ["221 bar", "220.64 bar"],
        ),
        (
            {"SPEC_OPT": "TV", "TEMP_VALUE": 500, "TEMP_UNITS": "C", "VFRAC_VALUE": 0.5},
            ["500 C", "373.946 C"],
        ),
    ],
)
def test_saturation_spec_above_the_critical_point_is_refused(
    method: str, spec: dict[str, Any], words: list[str]
) -> None:
    """Water at 300 bar, VF 0.5 came out as 389 C two-phase with IDEAL/NRTL/UNIFAC (Pc 220.64 bar)."""
    config = heater(method)
    config["blocks_Heater_data"]["H1"]["SPEC_DATA"] = spec
    with pytest.raises(SimulationError) as info:
        run_config(config)
    assert info.value.error_type == "InfeasibleSpecification", info.value.message
    for word in ["block H1", "critical", *words]:
        assert word in info.value.message, info.value.message


def test_saturated_feed_above_the_largest_critical_pressure_is_refused() -> None:
    config = flash_drum()  # methanol (Pc 80.8 bar) / water (Pc 220.64 bar), NRTL
    config["stream_data"]["FEED-1"].update({"MIXED_SPEC": "PV", "vfrac": {"VFRAC_VALUE": 0.2}})
    config["stream_data"]["FEED-1"]["pressure"]["PRES_VALUE"] = 230.0
    with pytest.raises(SimulationError) as info:
        run_config(config)
    assert info.value.error_type == "InfeasibleSpecification"
    assert "stream FEED-1" in info.value.message and "water: 220.64 bar" in info.value.message
    config["stream_data"]["FEED-1"]["pressure"]["PRES_VALUE"] = 100.0  # above methanol's Pc, below water's
    assert run_config(config)["streams"]["FEED-1"]["vapor_fraction"] == pytest.approx(0.2)


def test_saturation_just_below_the_critical_pressure_still_solves() -> None:
    from chemicals import iapws

    config = heater("IDEAL")
    config["blocks_Heater_data"]["H1"]["SPEC_DATA"] = {
        "SPEC_OPT": "PV",
        "PRES_VALUE": 200,
        "PRES_UNITS": "bar",
        "VFRAC_VALUE": 0.5,
    }
    results = run_config(config)
    T_sat = iapws.iapws95_Tsat(200e5) - 273.15  # 365.75 C
    assert results["streams"]["PROD-1"]["temperature_C"] == pytest.approx(T_sat, abs=1.0)


def test_huge_integer_in_a_config_field_is_malformed_json(inproc: TestClient) -> None:
    """A 5000-digit TEMP_VALUE was an InternalError (422) from Python's int parsing limit."""
    body = json.dumps(heater()).replace('"TEMP_VALUE": 80', '"TEMP_VALUE": ' + "9" * 5000)
    assert "9" * 5000 in body
    response = inproc.post("/run-aspen-simulation", content=body.encode())
    assert (response.status_code, response.json()["error_code"]) == (201, "MalformedJSON")
    body = json.dumps(heater()).replace('"TEMP_VALUE": 80', '"TEMP_VALUE": ' + "9" * 400)
    response = inproc.post("/run-aspen-simulation", content=body.encode())
    assert (response.status_code, response.json()["error_code"]) == (201, "InvalidNumber")
    assert "TEMP_VALUE" in response.json()["error_message"]


def test_duty_beyond_the_temperature_range_says_so_and_prints_nothing(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """-1e5 kW on 100 kmol/hr of water was FlashFailed "TypeError: cannot unpack non-iterable NoneType",
    and thermo printed its solver failures to stdout."""
    config = heater()
    config["blocks_Heater_data"]["H1"]["SPEC_DATA"] = {
        "SPEC_OPT": "PD",
        "PRES_VALUE": 1,
        "PRES_UNITS": "bar",
        "DUTY_VALUE": -1e5,
        "DUTY_UNITS": "kW",
    }
    with pytest.raises(SimulationError) as info:
        run_config(config)
    message = info.value.message
    assert info.value.error_type == "OutOfPhysicalBounds", message
    assert "block H1" in message and "duty" in message and "below" in message and "-263.15 C" in message
    assert "TypeError" not in message and "NoneType" not in message
    assert capsys.readouterr().out == ""
    config["blocks_Heater_data"]["H1"]["SPEC_DATA"]["DUTY_VALUE"] = 1e9
    with pytest.raises(SimulationError) as info:
        run_config(config)
    assert info.value.error_type == "OutOfPhysicalBounds" and "block H1" in info.value.message
    assert capsys.readouterr().out == ""


def test_a_cas_number_that_resolves_is_not_cross_checked_by_name(monkeypatch: pytest.MonkeyPatch) -> None:
    """The real service never writes database_name; a name chemicals does not know (ETHYL-ACETATE) would load
    its whole name database (seconds per fresh process) for nothing when the CAS number already resolves."""
    from simulator_mock.properties import components

    looked_up: list[str] = []
    real = components.cas_from_any

    def spy(identifier: str) -> str | None:
        looked_up.append(identifier)
        return real(identifier)

    monkeypatch.setattr(components, "cas_from_any", spy)
    cas, _ = components.resolve_component("ETAC", "C4H8O2", "141-78-6", "ETHYL-ACETATE")
    assert cas == "141-78-6" and looked_up == ["141-78-6"]
    cas, _ = components.resolve_component("MEOH", "METHANOL", None, "METHANOL")  # no CAS: by name
    assert cas == "67-56-1" and looked_up[1:] == ["METHANOL"]


@pytest.mark.parametrize("flow", [1e300, 2e9])
def test_a_feed_beyond_any_plant_is_refused_naming_the_stream(flow: float) -> None:
    """1e300 kmol/h used to "converge" and then overflow its results workbook (a 422 on reading it)."""
    config = heater()
    config["stream_data"]["FEED-1"]["flow"]["TOTFLOW_VALUE"] = flow
    config["stream_data"]["FEED-1"]["flow"]["WATER"]["FLOW_VALUE"] = flow
    with pytest.raises(SimulationError) as info:
        run_config(config)
    assert info.value.error_type == "OutOfPhysicalBounds" and info.value.status == 400
    assert "stream_data.FEED-1.flow" in info.value.message and "limit 1e+09 kmol/hr" in info.value.message


def test_an_integer_beyond_64_bits_is_still_answered() -> None:
    """pandas reads an integral float cell (1e300) as a Python int, beyond orjson: the answer is written
    by the standard library instead, keys sorted as before."""
    from simulator_mock.service.worker import answer_json

    assert json.loads(answer_json({"b": 10**300, "a": 1.5})) == {"a": 1.5, "b": 10**300}
    assert answer_json({"b": 10**300, "a": 1}).startswith(b'{"a": 1')
