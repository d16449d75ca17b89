"""Saved models: safetensors and JSON, loaded back in one call to the same outputs, never
unpickled; a damaged or foreign file named."""

from __future__ import annotations

import hashlib
import json
import pickle
from pathlib import Path
from typing import Any

import pytest
import torch
from safetensors.torch import save as save_safetensors

from memrnn.errors import UserError
from memrnn.models import build_model_for, load_model, model_names, save_model
from memrnn.models.saving import DESCRIPTION, WEIGHTS, _description_sha256
from memrnn.tasks import TextPairsTask, make_task
from tests.models.tiny import tiny_options

IDS = torch.tensor([[8, 1, 2, 9, 5, 6], [8, 3, 9, 7, 10, 10]])


def _saved(folder: Path, name: str = "stack_lstm") -> torch.nn.Module:
    torch.manual_seed(3)
    options = tiny_options(name)
    model = build_model_for(name, make_task("copy", vocab_size=4), **options)
    save_model(folder, model, name, options, task="copy", task_options={"vocab_size": 4})
    return model.eval()


@pytest.mark.parametrize("name", model_names("tokens"))
def test_every_token_model_loads_to_the_same_outputs(tmp_path: Path, name: str) -> None:
    model = _saved(tmp_path, name)
    state = torch.get_rng_state()
    loaded = load_model(tmp_path)
    assert torch.equal(torch.get_rng_state(), state)  # rebuilding draws nothing
    assert not loaded.model.training and loaded.name == name
    assert torch.equal(loaded.model(IDS), model(IDS))


def test_a_text_pairs_task_keeps_its_vocabularies(tmp_path: Path) -> None:
    pairs = tmp_path / "pairs.tsv"
    pairs.write_text("z a\tq\nm\tb q\n")
    task = TextPairsTask.from_file(pairs)
    model = build_model_for("gru", task, hidden_size=4)
    save_model(tmp_path / "m", model, "gru", {"hidden_size": 4}, task=task)
    loaded = load_model(tmp_path / "m")
    assert isinstance(loaded.task, TextPairsTask)
    assert loaded.task.options() == task.options() and loaded.task.pairs == ()
    assert json.loads((tmp_path / "m" / DESCRIPTION).read_text())["memrnn_version"]


def test_the_weights_are_safetensors_and_the_description_json(tmp_path: Path) -> None:
    _saved(tmp_path)
    assert (tmp_path / WEIGHTS).read_bytes()[8:9] == b"{"  # a safetensors header
    found = json.loads((tmp_path / DESCRIPTION).read_text())
    assert found["model"] == "stack_lstm" and found["task"] == {
        "name": "copy",
        "options": {"vocab_size": 4},
    }


def _break(folder: Path, what: str) -> str:
    """Damage the saved model in ``folder``; the start of the error expected. An edit of
    the description is sealed with a checksum of its own, as if another program wrote
    it, except for "an edited description"."""
    weights, description = folder / WEIGHTS, folder / DESCRIPTION
    found = json.loads(description.read_text())
    if what == "an edited description":
        found["options"]["hidden_size"] += 1
        description.write_text(json.dumps(found))
        return f"{description}: changed after it was saved"
    if what == "no description":
        description.unlink()
        return f"{description}: no model description here"
    if what == "garbled description":
        description.write_bytes(b"\x00{not json")
        return f"{description}: not a memrnn model description"
    if what == "foreign description":
        description.write_text('{"architectures": ["BertModel"]}')
        return f"{description}: not a memrnn model description (format None"
    if what == "description missing an entry":
        del found["options"]
        _sealed(description, found)
        return f"{description}: damaged model description (its 'options'"
    if what == "weights cut short":
        weights.write_bytes(weights.read_bytes()[:-10])
        return f"{weights}: not the weights {description} describes"
    if what == "no weights":
        weights.unlink()
        return f"{weights}: no model weights here"
    if what == "a pickle in place of the weights":
        blob = pickle.dumps({"weights": 1})
        weights.write_bytes(blob)
        found["weights_sha256"] = hashlib.sha256(blob).hexdigest()
        _sealed(description, found)
        return f"{weights}: not a safetensors file"
    if what == "weights of another model":
        blob = save_safetensors({"w": torch.zeros(2)})
        weights.write_bytes(blob)
        found["weights_sha256"] = hashlib.sha256(blob).hexdigest()
        _sealed(description, found)
        return f"{description}: cannot rebuild the model it describes (Error(s) in loading"
    if what == "an unknown model":
        found["model"] = "nosuch"
        _sealed(description, found)
        return f"{description}: cannot rebuild the model it describes (name: expected"
    raise AssertionError(what)


def _sealed(description: Path, found: dict[str, Any]) -> None:
    """Write ``found`` to ``description`` with its checksum made anew."""
    found["description_sha256"] = _description_sha256(found)
    description.write_text(json.dumps(found))


@pytest.mark.parametrize(
    "what",
    [
        "an edited description",
        "no description",
        "garbled description",
        "foreign description",
        "description missing an entry",
        "weights cut short",
        "no weights",
        "a pickle in place of the weights",
        "weights of another model",
        "an unknown model",
    ],
)
def test_a_damaged_or_foreign_file_is_named(tmp_path: Path, what: str) -> None:
    _saved(tmp_path)
    expected = _break(tmp_path, what)
    with pytest.raises(UserError) as caught:
        load_model(tmp_path)
    assert str(caught.value).startswith(expected), str(caught.value)


def test_a_failed_save_leaves_the_old_model(tmp_path: Path) -> None:
    model = _saved(tmp_path)
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    with pytest.raises(ValueError, match="vocab_size: expected an int"):
        save_model(tmp_path, model, task="copy", task_options={"vocab_size": object()})
    with pytest.raises(ValueError, match="options: the model was built with"):
        save_model(tmp_path, model, "stack_lstm", {"hidden_size": 9}, task="copy")
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before


def test_bad_arguments_are_named(tmp_path: Path) -> None:
    model = _saved(tmp_path)
    with pytest.raises(ValueError, match="name: the model was built as 'stack_lstm', not 'gru'"):
        save_model(tmp_path, model, "gru", task="copy")
    with pytest.raises(ValueError, match="task: expected a TextPairsTask or a registered"):
        save_model(tmp_path, model, "stack_lstm", task=make_task("copy"))


def test_a_built_model_saves_with_nothing_but_itself(tmp_path: Path) -> None:
    torch.manual_seed(0)
    model = build_model_for("deque_lstm", make_task("copy", vocab_size=4), hidden_size=6)
    save_model(tmp_path, model)  # no name, options or task: the model knows how it was built
    loaded = load_model(tmp_path)
    assert loaded.name == "deque_lstm" and loaded.task is None and loaded.task_options == {}
    assert loaded.options == {"hidden_size": 6, "embedding": 16, "memory_width": 16}
    assert torch.equal(loaded.model(IDS), model.eval()(IDS))
    save_model(tmp_path / "again", loaded.model)  # and a loaded model saves again
    assert torch.equal(load_model(tmp_path / "again").model(IDS), model(IDS))


def test_a_model_made_by_hand_needs_its_name_and_right_options(tmp_path: Path) -> None:
    from memrnn.models import MemoryAugmentedLSTM

    task = make_task("copy", vocab_size=4)
    sizes = {"hidden_size": 8, "embedding": 4, "memory_width": 4}
    model = MemoryAugmentedLSTM(task.input_size, task.output_size, **sizes, memory="stack")
    with pytest.raises(ValueError, match="name: the model was not made by"):
        save_model(tmp_path, model, task=task)
    with pytest.raises(ValueError, match=r"options: 'stack_lstm' built with .* other weights"):
        save_model(tmp_path, model, "stack_lstm", {"hidden_size": 9}, task="copy",
                   task_options={"vocab_size": 4})  # fmt: skip
    assert not any(tmp_path.iterdir())  # refused before anything is written
    with pytest.raises(ValueError, match="name: expected a registered model"):
        save_model(tmp_path, model, "nosuch", task="copy")
    save_model(tmp_path, model, "stack_lstm", sizes, task="copy", task_options={"vocab_size": 4})
    assert torch.equal(load_model(tmp_path).model(IDS), model.eval()(IDS))


def test_a_description_without_sizes_takes_them_from_its_task(tmp_path: Path) -> None:
    model = _saved(tmp_path)
    found = json.loads((tmp_path / DESCRIPTION).read_text())
    del found["input_size"], found["output_size"], found["description_sha256"]  # as 0.1.0 wrote
    (tmp_path / DESCRIPTION).write_text(json.dumps(found))
    assert torch.equal(load_model(tmp_path).model(IDS), model(IDS))


def test_what_cannot_load_is_not_saved(tmp_path: Path) -> None:
    task = make_task("copy", vocab_size=4)
    model = build_model_for("stack_lstm", task, hidden_size=6)
    with pytest.raises(ValueError, match=r"model: expected a torch\.nn\.Module, got str"):
        save_model(tmp_path, "not a model")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"task: its sizes \(17 in, 8 out\) are not the model's"):
        save_model(tmp_path, model, task="copy", task_options={"vocab_size": 7})
    with torch.no_grad():
        model.output.weight[0, 0] = float("nan")
    with pytest.raises(ValueError, match=r"model: its output\.weight holds NaN or infinite"):
        save_model(tmp_path, model)
    assert not any(tmp_path.iterdir())


def test_a_model_loads_in_the_dtype_it_was_saved_in(tmp_path: Path) -> None:
    model = build_model_for("stack_lstm", make_task("copy", vocab_size=4), hidden_size=6)
    save_model(tmp_path, model.to(torch.bfloat16))
    loaded = load_model(tmp_path).model
    assert {p.dtype for p in loaded.parameters()} == {torch.bfloat16}
    assert torch.equal(loaded(IDS), model.eval()(IDS))


def test_a_model_made_by_hand_takes_its_sizes_from_itself(tmp_path: Path) -> None:
    from memrnn.models import MemoryAugmentedLSTM

    sizes = {"hidden_size": 8, "embedding": 4, "memory_width": 4}
    model = MemoryAugmentedLSTM(11, 5, **sizes, memory="stack")
    save_model(tmp_path, model, "stack_lstm", sizes)  # no task: input_vocab, output_vocab
    assert torch.equal(load_model(tmp_path).model(IDS), model.eval()(IDS))
