"""Every kind of bad input: success false, an error_type and a message naming the culprit, never a 5xx."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from fastapi.testclient import TestClient

from simulator_mock import SimulationError, run_config
from simulator_mock.examples import column, feed, flash_drum, heater, pump, recycle, shortcut_column, valve

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


FEED_T = "stream_data/FEED/temperature/TEMP_VALUE"
H1_SPEC = "blocks_Heater_data/H1/SPEC_DATA"

# (case, base config, mutation, error_type, status, words the message must contain)
CASES: list[tuple[str, Callable[[], dict[str, Any]], Mutation, str, int, list[str]]] = [
    (
        "unknown component",
        heater,
        _set("components/0", {"cid": "X", "name": "unobtainium"}),
        "UnknownComponent",
        400,
        ["X", "unobtainium"],
    ),
    (
        "unknown CAS number",
        heater,
        _set("components/0", {"cid": "WATER", "cas_number": "1234-56-7"}),
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
        _set("property_methods", [{"method_name": "NRTL"}, {"method_name": "IDEAL"}]),
        "UnknownPropertyMethod",
        400,
        ["is_basis_method"],
    ),
    (
        "stream to a missing block",
        heater,
        _set("block_connections/H9", {"FEED": "F(IN)"}),
        "UnknownBlock",
        400,
        ["H9"],
    ),
    (
        "undeclared stream",
        heater,
        _set("block_connections/H1/GHOST", "P(OUT)"),
        "UnknownStream",
        400,
        ["GHOST"],
    ),
    (
        "missing port",
        heater,
        _set("block_connections/H1/PROD", "V(OUT)"),
        "UnknownPort",
        400,
        ["H1", "V(OUT)", "P(OUT)"],
    ),
    (
        "block without outlet",
        heater,
        _set("block_connections/H1", {"FEED": "F(IN)"}),
        "BlockWithoutOutlet",
        400,
        ["H1"],
    ),
    (
        "flash drum without liquid outlet",
        flash_drum,
        _drop("block_connections/F1/LIQ"),
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
        ["FEED", "stream_data"],
    ),
    (
        "stream_data of a missing stream",
        heater,
        _set("stream_data/NOPE", feed(25.0, 1.0, {"WATER": 1.0})),
        "UnknownStream",
        400,
        ["NOPE"],
    ),
    (
        "unconnected stream",
        heater,
        _set("streams", [{"name": "FEED"}, {"name": "PROD"}, {"name": "LOST"}]),
        "UnconnectedStream",
        400,
        ["LOST"],
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
        _set("stream_data/FEED/flow/FLOW_VALUE/WATER", -5.0),
        "SchemaValidationError",
        400,
        ["stream_data.FEED.flow.FLOW_VALUE.WATER", "minimum"],
    ),
    (
        "negative total flow",
        heater,
        _set(
            "stream_data/FEED/flow", {"BASIS": "MOLE-FRAC", "TOTFLOW_VALUE": -1, "FLOW_VALUE": {"WATER": 1}}
        ),
        "SchemaValidationError",
        400,
        ["TOTFLOW_VALUE"],
    ),
    (
        "zero flow",
        heater,
        _set("stream_data/FEED/flow/FLOW_VALUE/WATER", 0.0),
        "InvalidSpecification",
        400,
        ["stream_data.FEED.flow"],
    ),
    (
        "unknown component in a feed",
        heater,
        _set("stream_data/FEED/flow/FLOW_VALUE/ETOH", 1.0),
        "InvalidSpecification",
        400,
        ["ETOH"],
    ),
    (
        "NaN",
        heater,
        _set(FEED_T, float("nan")),
        "InvalidNumber",
        400,
        ["stream_data.FEED.temperature.TEMP_VALUE"],
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
        _set("stream_data/FEED/pressure/PRES_UNITS", "bara"),
        "UnknownUnit",
        400,
        ["PRES_UNITS", "bara"],
    ),
    (
        "unknown duty unit",
        heater,
        _set(H1_SPEC, {"SPEC_OPT": "PQ", "PRES_VALUE": 1, "DUTY_VALUE": 5, "DUTY_UNITS": "BTU"}),
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
        ["FEED", "temperature"],
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
        _set(H1_SPEC, {"SPEC_OPT": "PV", "PRES_VALUE": 1, "VFRAC_VALUE": 1.5}),
        "SchemaValidationError",
        400,
        ["VFRAC_VALUE"],
    ),
    (
        "zero pressure",
        heater,
        _set("stream_data/FEED/pressure/PRES_VALUE", 0),
        "SchemaValidationError",
        400,
        ["PRES_VALUE"],
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
        _set("blocks_Mixer_data", {"H1": {}}),
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
        _set("blocks_RadFrac_data/C1/CONFIG_DATA/OP_SPEC/1", {"BASIS_D_VALUE": 500}),
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
            c["block_connections"].update({"H2": {"PROD": "F(IN)", "FEED": "P(OUT)"}}),
            c["blocks_Heater_data"].update({"H2": c["blocks_Heater_data"]["H1"]}),
        ),
        "NoFeedStream",
        400,
        ["no feed stream", "FEED (H2 -> H1)", "PROD (H1 -> H2)", "stream_data is given for FEED"],
    ),
    (
        "loop with a feed but no product",
        heater,
        lambda c: (
            c["streams"].append({"name": "BACK"}),
            c["blocks"].append({"name": "M", "type": "Mixer"}),
            c["block_connections"]["H1"].update({"BACK": "F(IN)"}),
            c["block_connections"].update({"M": {"PROD": "F(IN)", "BACK": "P(OUT)"}}),
        ),
        "NoProductStream",
        400,
        ["no product stream", "PROD (H1 -> M)", "BACK (M -> H1)"],
    ),
    (
        "recycle cap too low",
        recycle,
        _set("setup/convergence/max_iterations", 2),
        "NotConverged",
        422,
        ["RECYCLE"],
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
    ("body", "error_type"),
    [
        (b"", "MalformedJSON"),
        (b"{", "MalformedJSON"),
        (b"[1, 2]", "MalformedJSON"),
        (b"\xff\xfe{}", "MalformedJSON"),
        (b"{}", "SchemaValidationError"),
        (b'{"components": NaN}', "InvalidNumber"),
        (b"[" * 100_000 + b"]" * 100_000, "MalformedJSON"),
        (b'{"components": ' + b"9" * 5000 + b"}", "MalformedJSON"),  # over Python's 4300-digit limit
        (b'{"components": ' + b"9" * 400 + b"}", "InvalidNumber"),  # readable, but beyond any float
    ],
)
def test_bad_bodies_over_http(inproc: TestClient, body: bytes, error_type: str) -> None:
    response = inproc.post(
        "/run-aspen-simulation", content=body, headers={"content-type": "application/json"}
    )
    assert response.status_code == 400
    assert response.json() == {
        "success": False,
        "error_type": error_type,
        "error_message": response.json()["error_message"],
    }
    assert response.json()["error_message"]


def test_http_status_follows_the_error(inproc: TestClient) -> None:
    config = valve()
    config["blocks_Valve_data"]["V1"]["JOB_DATA"]["P_OUT_VALUE"] = 10
    response = inproc.post("/run-aspen-simulation", json=config)
    assert response.status_code == 422
    assert response.json()["error_type"] == "InfeasibleSpecification"
    response = inproc.post("/run-aspen-simulation", content=b'{"a": Infinity}')
    assert response.status_code == 400
    assert response.json()["error_type"] == "InvalidNumber"
    assert "a:" in response.json()["error_message"]


@pytest.mark.parametrize("method", ["IDEAL", "NRTL", "UNIFAC", "PENG-ROB"])
@pytest.mark.parametrize(
    ("spec", "words"),
    [
        ({"SPEC_OPT": "PV", "PRES_VALUE": 300, "VFRAC_VALUE": 0.5}, ["300 bar", "220.64 bar"]),
        ({"SPEC_OPT": "PV", "PRES_VALUE": 221, "VFRAC_VALUE": 0.0}, ["221 bar", "220.64 bar"]),
        ({"SPEC_OPT": "TV", "TEMP_VALUE": 500, "VFRAC_VALUE": 0.5}, ["500 C", "373.946 C"]),
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
    config["stream_data"]["FEED"].update({"MIXED_SPEC": "PV", "vapor_fraction": {"VFRAC_VALUE": 0.2}})
    config["stream_data"]["FEED"]["pressure"]["PRES_VALUE"] = 230.0
    with pytest.raises(SimulationError) as info:
        run_config(config)
    assert info.value.error_type == "InfeasibleSpecification"
    assert "stream FEED" in info.value.message and "water: 220.64 bar" in info.value.message
    config["stream_data"]["FEED"]["pressure"]["PRES_VALUE"] = 100.0  # above methanol's Pc, below water's
    assert run_config(config)["streams"]["FEED"]["vapor_fraction"] == pytest.approx(0.2)


def test_saturation_just_below_the_critical_pressure_still_solves() -> None:
    from chemicals import iapws

    config = heater("IDEAL")
    config["blocks_Heater_data"]["H1"]["SPEC_DATA"] = {
        "SPEC_OPT": "PV",
        "PRES_VALUE": 200,
        "VFRAC_VALUE": 0.5,
    }
    results = run_config(config)
    T_sat = iapws.iapws95_Tsat(200e5) - 273.15  # 365.75 C
    assert results["streams"]["PROD"]["temperature_C"] == pytest.approx(T_sat, abs=1.0)


def test_huge_integer_in_a_config_field_is_malformed_json(inproc: TestClient) -> None:
    """A 5000-digit TEMP_VALUE was an InternalError (422) from Python's int parsing limit."""
    body = json.dumps(heater()).replace('"TEMP_VALUE": 80', '"TEMP_VALUE": ' + "9" * 5000)
    assert "9" * 5000 in body
    response = inproc.post("/run-aspen-simulation", content=body.encode())
    assert (response.status_code, response.json()["error_type"]) == (400, "MalformedJSON")
    body = json.dumps(heater()).replace('"TEMP_VALUE": 80', '"TEMP_VALUE": ' + "9" * 400)
    response = inproc.post("/run-aspen-simulation", content=body.encode())
    assert (response.status_code, response.json()["error_type"]) == (400, "InvalidNumber")
    assert "TEMP_VALUE" in response.json()["error_message"]


def test_duty_beyond_the_temperature_range_says_so_and_prints_nothing(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """-1e5 kW on 100 kmol/hr of water was FlashFailed "TypeError: cannot unpack non-iterable NoneType",
    and thermo printed its solver failures to stdout."""
    config = heater()
    config["blocks_Heater_data"]["H1"]["SPEC_DATA"] = {"SPEC_OPT": "PQ", "PRES_VALUE": 1, "DUTY_VALUE": -1e5}
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
