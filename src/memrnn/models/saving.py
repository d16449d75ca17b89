"""A trained model saved to a folder and loaded back in one call, without pickle.

A saved model is two files in its folder:

- ``model.safetensors``: the weights (the model's ``state_dict``) in the safetensors
  format, which holds tensors and nothing that runs code when read;
- ``model.json``: what rebuilds the model around them: the registered model name and its
  build options (``memrnn.models.build_model``), the task it reads (a ``TextPairsTask``'s
  vocabularies, or a registered task's name and options), the memrnn version that saved
  it, and the SHA-256 of the weights file, so that weights and description that do not
  belong together (a copy cut short, a save interrupted between the two files) are
  refused, not mixed.

Both are written atomically (:func:`memrnn.io.write_atomic`), the weights first.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch
from safetensors import SafetensorError
from safetensors.torch import load as load_safetensors
from safetensors.torch import save as save_safetensors
from torch import Tensor, nn

from memrnn import __version__
from memrnn.errors import UserError
from memrnn.io import write_atomic
from memrnn.models.registry import build_model_for, model_names
from memrnn.tasks import Task, make_task
from memrnn.tasks.text_pairs import TextPairsTask

WEIGHTS, DESCRIPTION = "model.safetensors", "model.json"
FORMAT = "memrnn-model/1"
TEXT_PAIRS = "text_pairs"  # the task entry of a TextPairsTask, which is not registered


@dataclass(frozen=True)
class SavedModel:
    """A model with what it was built from, as :func:`load_model` gives it.

    Attributes:
        model: the network, in eval mode: ``model(ids)`` gives logits (B, T, outputs).
        name: its registered name (``memrnn.models.model_names()``).
        options: the build options it was made with.
        task: the task it reads (a ``TextPairsTask`` decodes text with it).
        task_options: what rebuilds ``task``.
        version: the memrnn version that saved it.
    """

    model: nn.Module
    name: str
    options: Mapping[str, Any]
    task: Task
    task_options: Mapping[str, Any]
    version: str


def _json_text(name: str, value: object) -> str:
    """``value`` as JSON, or a ValueError naming ``name`` for a value JSON cannot hold."""
    try:
        return json.dumps(value, sort_keys=True, indent=2, allow_nan=False)
    except (TypeError, ValueError) as error:
        raise ValueError(f"{name}: not JSON-able ({error})") from None


def _task_entry(task: Task | str, task_options: Mapping[str, Any] | None) -> dict[str, Any]:
    if isinstance(task, TextPairsTask):
        if task_options is not None:
            raise ValueError("task_options: a TextPairsTask records its own")
        return {"name": TEXT_PAIRS, "options": task.options()}
    if isinstance(task, str):
        return {"name": task, "options": dict(task_options or {})}
    raise ValueError(
        f"task: expected a TextPairsTask or a registered task's name, got {type(task).__name__}"
    )


def save_model(
    folder: str | os.PathLike[str],
    model: nn.Module,
    name: str,
    options: Mapping[str, Any] | None = None,
    *,
    task: Task | str,
    task_options: Mapping[str, Any] | None = None,
) -> Path:
    """Save ``model``, built as ``build_model_for(name, task, **options)``, to ``folder``
    (made if missing); return the description's path. ``task`` is a ``TextPairsTask``
    (its vocabularies are saved) or the name of a registered task made with
    ``task_options``.

    >>> import tempfile
    >>> from memrnn.models import build_model_for
    >>> from memrnn.tasks import make_task
    >>> model = build_model_for("stack_lstm", make_task("copy", vocab_size=4), hidden_size=8)
    >>> folder = tempfile.mkdtemp()
    >>> _ = save_model(folder, model, "stack_lstm", {"hidden_size": 8},
    ...                task="copy", task_options={"vocab_size": 4})
    >>> loaded = load_model(folder)
    >>> ids = torch.tensor([[8, 1, 2, 9]])
    >>> torch.equal(loaded.model(ids), model.eval()(ids))
    True

    Raises:
        ValueError: an unknown model name, options or task options JSON cannot hold.
    """
    if name not in model_names():
        raise ValueError(f"name: expected a registered model, one of {model_names()}, got {name!r}")
    folder = Path(folder)
    weights = {k: v.detach().cpu().contiguous().clone() for k, v in model.state_dict().items()}
    blob = save_safetensors(weights)
    description = {
        "format": FORMAT,
        "memrnn_version": __version__,
        "model": name,
        "options": dict(options or {}),
        "task": _task_entry(task, task_options),
        "weights_sha256": hashlib.sha256(blob).hexdigest(),
    }
    text = _json_text("options", description)
    write_atomic(folder / WEIGHTS, lambda f: f.write(blob))
    write_atomic(folder / DESCRIPTION, lambda f: f.write(text.encode() + b"\n"))
    return folder / DESCRIPTION


def _read(path: Path, what: str) -> bytes:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        raise UserError(
            f"{path}: no {what} here; is {path.parent} a saved model's folder?"
        ) from None
    except OSError as error:
        raise UserError(f"{path}: cannot read the {what} ({error.strerror or error})") from None


def _description(path: Path) -> dict[str, Any]:
    """The checked contents of ``model.json``."""
    try:
        found = json.loads(_read(path, "model description").decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise UserError(f"{path}: not a memrnn model description ({error})") from None
    if not isinstance(found, dict) or found.get("format") != FORMAT:
        got = found.get("format") if isinstance(found, dict) else type(found).__name__
        raise UserError(f"{path}: not a memrnn model description (format {got!r}, not {FORMAT!r})")
    kinds = {
        "model": str,
        "options": dict,
        "task": dict,
        "memrnn_version": str,
        "weights_sha256": str,
    }
    for key, kind in kinds.items():
        if not isinstance(found.get(key), kind):
            raise UserError(
                f"{path}: damaged model description (its {key!r} is not a {kind.__name__})"
            )
    task = found["task"]
    if not isinstance(task.get("name"), str) or not isinstance(task.get("options"), dict):
        raise UserError(f"{path}: damaged model description (its 'task' needs a name and options)")
    return found


def _weights(path: Path, sha256: str, description: Path) -> dict[str, Tensor]:
    blob = _read(path, "model weights")
    if hashlib.sha256(blob).hexdigest() != sha256:
        raise UserError(
            f"{path}: not the weights {description} describes (damaged, or from another save)"
        )
    try:
        return load_safetensors(blob)
    except (SafetensorError, ValueError, RuntimeError) as error:
        raise UserError(f"{path}: not a safetensors file ({error})") from None


def load_model(folder: str | os.PathLike[str], device: str | torch.device = "cpu") -> SavedModel:
    """The model saved in ``folder`` by :func:`save_model`, rebuilt, its weights loaded,
    on ``device``, in eval mode, ready to predict. Nothing is unpickled: the description
    is JSON, the weights safetensors. Rebuilding draws no random numbers from torch's
    global generator.

    Raises:
        UserError: (a ValueError) naming the file: no saved model in ``folder``, a file
            that is not what it should be (damaged, another program's, weights that do
            not belong to the description or do not fit the model), or a model or task
            this memrnn does not have.
    """
    folder = Path(folder)
    path = folder / DESCRIPTION
    found = _description(path)
    weights = _weights(folder / WEIGHTS, found["weights_sha256"], path)
    entry, options = found["task"], found["options"]
    try:
        task_options = entry["options"]
        task = (
            TextPairsTask(**task_options)
            if entry["name"] == TEXT_PAIRS
            else make_task(entry["name"], **task_options)
        )
        with torch.random.fork_rng(devices=[]):  # initial weights, overwritten below
            model = build_model_for(found["model"], task, **options)
        model.load_state_dict(weights, strict=True)
    except (ValueError, TypeError, RuntimeError) as error:
        reason = " ".join(str(error).split())
        raise UserError(f"{path}: cannot rebuild the model it describes ({reason})") from None
    return SavedModel(
        model.to(device).eval(),
        found["model"],
        options,
        task,
        task_options,
        found["memrnn_version"],
    )
