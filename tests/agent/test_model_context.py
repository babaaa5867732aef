"""The agent's model context clears the schema answer from view once a simulation has succeeded."""

from __future__ import annotations

import json

from autogen_core import FunctionCall
from autogen_core.models import (
    AssistantMessage,
    FunctionExecutionResult,
    FunctionExecutionResultMessage,
    SystemMessage,
    UserMessage,
)

from aspen_rl.agent.context import (
    CONFIG_ACKNOWLEDGED,
    SCHEMA_CLEARED,
    SchemaClearingContext,
    clear_schema_after_success,
    model_view,
)


def _call(name: str, call_id: str) -> AssistantMessage:
    return AssistantMessage(content=[FunctionCall(id=call_id, name=name, arguments="{}")], source="agent")


def _result(name: str, call_id: str, content: str) -> FunctionExecutionResultMessage:
    return FunctionExecutionResultMessage(
        content=[FunctionExecutionResult(content=content, name=name, call_id=call_id, is_error=False)]
    )


FAILED = json.dumps({"success": False, "error_code": "UnknownUnit", "error_message": "UnknownUnit: ..."})
OK = json.dumps({"success": True, "result_file_path": "/r/aspen_result_export_1.xlsx"})


def _conversation(*run_answers: str) -> list:
    messages = [SystemMessage(content="sys"), UserMessage(content="heat water", source="user")]
    messages += [_call("get_schema", "c0"), _result("get_schema", "c0", "## base\n" + "x" * 5000)]
    for i, answer in enumerate(run_answers, start=1):
        messages += [_call("run_simulation", f"c{i}"), _result("run_simulation", f"c{i}", answer)]
    return messages


def _schema_text(messages: list) -> str:
    return messages[3].content[0].content


def test_schema_stays_visible_until_a_run_succeeds() -> None:
    messages = _conversation(FAILED)
    assert _schema_text(clear_schema_after_success(messages)).startswith("## base")


def test_schema_is_cleared_after_a_successful_run_and_the_input_is_kept() -> None:
    messages = _conversation(FAILED, OK)
    shown = clear_schema_after_success(messages)
    assert _schema_text(shown) == SCHEMA_CLEARED
    assert _schema_text(messages).startswith("## base")  # the conversation itself is untouched
    assert shown[5].content[0].content == FAILED and shown[7].content[0].content == OK
    assert len(shown) == len(messages)


def test_a_schema_fetched_after_the_success_stays_visible() -> None:
    messages = _conversation(OK)
    messages += [_call("get_schema", "c9"), _result("get_schema", "c9", "## Heater\nfresh")]
    shown = clear_schema_after_success(messages)
    assert _schema_text(shown) == SCHEMA_CLEARED
    assert shown[-1].content[0].content == "## Heater\nfresh"


async def test_context_shows_the_cleared_view_and_keeps_every_message() -> None:
    context = SchemaClearingContext()
    for message in _conversation(OK):
        await context.add_message(message)
    shown = await context.get_messages()
    assert _schema_text(shown) == SCHEMA_CLEARED
    state = await context.save_state()
    assert "## base" in json.dumps(state)


RESULTS = "Results workbook aspen_result_export_1.xlsx\n[Stream Summary]\nTemperature | C | 80"


def _run_call(call_id: str, config: str) -> AssistantMessage:
    call = FunctionCall(id=call_id, name="run_simulation", arguments=json.dumps({"config": config}))
    return AssistantMessage(content=[call], source="agent")


def _with_runs() -> list:
    messages = [SystemMessage(content="sys"), UserMessage(content="heat water", source="user")]
    messages += [_run_call("c1", '{"bad": 1}'), _result("run_simulation", "c1", FAILED)]
    messages += [_run_call("c2", '{"blocks": []}'), _result("run_simulation", "c2", OK)]
    return messages


def _config_of(message: AssistantMessage) -> str:
    return json.loads(message.content[0].arguments)["config"]


def test_a_successful_run_config_is_acknowledged_and_a_failed_run_config_kept() -> None:
    messages = _with_runs()
    shown = model_view(messages)
    assert _config_of(shown[4]) == CONFIG_ACKNOWLEDGED  # it ran: the next turns need its path, not it
    assert _config_of(shown[2]) == '{"bad": 1}'  # a failed run's config is what the model may fix
    assert _config_of(messages[4]) == '{"blocks": []}'  # the conversation itself is untouched
    messages += [_call("get_result", "c3"), _result("get_result", "c3", RESULTS)]
    shown = model_view(messages)
    assert _config_of(shown[4]) == CONFIG_ACKNOWLEDGED
    assert shown[-1].content[0].content == RESULTS
