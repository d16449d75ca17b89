"""A trained model saved to a folder and loaded back in one call, without pickle.

A saved model is two files in its folder:

- ``model.safetensors``: the weights (the model's ``state_dict``) in the safetensors
  format, which holds tensors and nothing that runs code when read;
- ``model.json``: what rebuilds the model around them: the registered model name, its
  sizes and build options (``memrnn.models.build_model``, which keeps them on the model),
  the task it reads if one is given (a ``TextPairsTask``'s vocabularies, or a registered
  task's name and options), the memrnn version that saved it, and the SHA-256 of the
  weights file, so that weights and description that do not belong together (a copy cut
  short, a save interrupted between the two files) are refused, not mixed; and the
  SHA-256 of the description itself, so that an edit (a vocabulary entry renamed, which
  would change what the model decodes) is refused too.

``save_model(folder, model)`` needs nothing but the model for one that ``build_model``
(or ``build_model_for``) made; ``load_model(folder)`` needs nothing but the folder.

Both are written atomically (:func:`memrnn.io.write_atomic`), the weights first.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
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
from memrnn.models.registry import ModelBuild, build_model, model_build, model_names
from memrnn.tasks import Task, make_task
from memrnn.tasks.text_pairs import TextPairsTask

WEIGHTS, DESCRIPTION = "model.safetensors", "model.json"
FORMAT = "memrnn-model/1"
TEXT_PAIRS = "text_pairs"  # the task entry of a TextPairsTask, which is not registered
SIZES = ("input_size", "output_size")


@dataclass(frozen=True)
class SavedModel:
    """A model with what it was built from, as :func:`load_model` gives it.

    Attributes:
        model: the network, in eval mode: ``model(ids)`` gives logits (B, T, outputs).
        name: its registered name (``memrnn.models.model_names()``).
        options: the build options it was made with.
        task: the task it reads (a ``TextPairsTask`` decodes text with it), or None where
            it was saved without one.
        task_options: what rebuilds ``task`` (empty without one).
        version: the memrnn version that saved it.
        selection: how ``memrnn fit`` chose it among its candidates (empty for a model
            saved otherwise): ``chosen``, ``held_out`` and each candidate's figures.
    """

    model: nn.Module
    name: str
    options: Mapping[str, Any]
    task: Task | None
    task_options: Mapping[str, Any]
    version: str
    selection: Mapping[str, Any] = field(default_factory=dict)


def _json_text(name: str, value: object) -> str:
    """``value`` as JSON, or a ValueError naming ``name`` for a value JSON cannot hold."""
    try:
        return json.dumps(value, sort_keys=True, indent=2, allow_nan=False)
    except (TypeError, ValueError) as error:
        raise ValueError(f"{name}: not JSON-able ({error})") from None


def _task_entry(
    task: Task | str | None, task_options: Mapping[str, Any] | None
) -> dict[str, Any] | None:
    if task is None:
        if task_options is not None:
            raise ValueError("task_options: given without a task")
        return None
    if isinstance(task, TextPairsTask):
        if task_options is not None:
            raise ValueError("task_options: a TextPairsTask records its own")
        return {"name": TEXT_PAIRS, "options": task.options()}
    if isinstance(task, str):
        return {"name": task, "options": dict(task_options or {})}
    raise ValueError(
        f"task: expected a TextPairsTask or a registered task's name, got {type(task).__name__}"
    )


def _task_made(task: Task | str | None, task_options: Mapping[str, Any] | None) -> Task | None:
    """The task ``save_model`` was given, made if it was given by name."""
    entry = _task_entry(task, task_options)
    return _make_task(entry) if isinstance(task, str) and entry is not None else task  # type: ignore[return-value]


def _own_sizes(model: nn.Module) -> tuple[int, int] | None:
    """A model's input and output sizes from its own attributes, if it has them."""
    for names in (("input_size", "output_size"), ("input_vocab", "output_vocab")):
        sizes = [getattr(model, n, None) for n in names]
        if all(isinstance(s, int) and not isinstance(s, bool) for s in sizes):
            return int(sizes[0]), int(sizes[1])  # type: ignore[arg-type]
    return None


def _make_task(entry: Mapping[str, Any]) -> Task:
    options = entry["options"]
    if entry["name"] == TEXT_PAIRS:
        return TextPairsTask(**options)
    return make_task(entry["name"], **options)


def _build(
    model: nn.Module,
    name: str | None,
    options: Mapping[str, Any] | None,
    task: Task | str | None,
    task_options: Mapping[str, Any] | None,
) -> ModelBuild:
    """How ``model`` was built: its own record (``model_build``), which ``name`` and
    ``options``, if given, must agree with; or, for a model ``build_model`` did not make,
    ``name``, ``options`` and the task's sizes. The record is checked by building the
    model again: its weights must have the names and shapes of ``model``'s, so that a
    wrong record fails here and not when the folder is loaded. A model made by hand takes
    its sizes from the task, or else from its own ``input_size`` and ``output_size`` (or
    ``input_vocab`` and ``output_vocab``)."""
    if not isinstance(model, nn.Module):
        raise ValueError(f"model: expected a torch.nn.Module, got {type(model).__name__}")
    found = model_build(model)
    if found is None:
        if name is None:
            raise ValueError(
                "name: the model was not made by memrnn.models.build_model, so its name and "
                "build options are unknown; pass them: save_model(folder, model, name, options, "
                "task=...)"
            )
        if name not in model_names():
            raise ValueError(
                f"name: expected a registered model, one of {model_names()}, got {name!r}"
            )
        made = _task_made(task, task_options)
        sizes = (made.input_size, made.output_size) if made is not None else _own_sizes(model)
        if sizes is None:
            raise ValueError(
                "task: needed for a model not made by build_model and without input_size "
                "and output_size of its own (its sizes)"
            )
        with torch.random.fork_rng(devices=[]):
            found = model_build(build_model(name, *sizes, **(options or {})))
        assert found is not None
    elif name is not None and name != found.name:
        raise ValueError(f"name: the model was built as {found.name!r}, not {name!r}")
    elif options is not None:
        with torch.random.fork_rng(devices=[]):
            given = model_build(
                build_model(found.name, found.input_size, found.output_size, **options)
            )
        if given is None or dict(given.options) != dict(found.options):
            raise ValueError(
                f"options: the model was built with {dict(found.options)}, not {dict(options)}"
            )
    made = _task_made(task, task_options)
    if made is not None and (made.input_size, made.output_size) != (found.input_size,
                                                                  found.output_size):  # fmt: skip
        raise ValueError(
            f"task: its sizes ({made.input_size} in, {made.output_size} out) are not the "
            f"model's ({found.input_size} in, {found.output_size} out)"
        )
    with torch.random.fork_rng(devices=[]):
        rebuilt = build_model(found.name, found.input_size, found.output_size, **found.options)
    want = {k: tuple(v.shape) for k, v in rebuilt.state_dict().items()}
    have = {k: tuple(v.shape) for k, v in model.state_dict().items()}
    if want != have:
        wrong = sorted(k for k in set(want) | set(have) if want.get(k) != have.get(k))
        raise ValueError(
            f"options: {found.name!r} built with {dict(found.options)} has other weights than "
            f"this model ({wrong[0]}: {want.get(wrong[0])} there, {have.get(wrong[0])} here)"
        )
    return found


def save_model(
    folder: str | os.PathLike[str],
    model: nn.Module,
    name: str | None = None,
    options: Mapping[str, Any] | None = None,
    *,
    task: Task | str | None = None,
    task_options: Mapping[str, Any] | None = None,
    selection: Mapping[str, Any] | None = None,
) -> Path:
    """Save ``model`` to ``folder`` (made if missing); return the description's path.

    A model made by ``build_model`` or ``build_model_for`` carries its name, sizes and
    options, so ``save_model(folder, model, task=task)`` is all it takes; ``name`` and
    ``options``, if given, must agree with them. A model made otherwise needs ``name``,
    its ``options`` and a ``task``. ``task`` (optional for the first kind) is a
    ``TextPairsTask`` (its vocabularies are saved) or the name of a registered task made
    with ``task_options``; :func:`load_model` gives it back, and ``selection`` (what
    ``memrnn fit`` chose among, JSON-able), if given.

    >>> import tempfile
    >>> from memrnn.models import build_model_for
    >>> from memrnn.tasks import make_task
    >>> model = build_model_for("stack_lstm", make_task("copy", vocab_size=4), hidden_size=8)
    >>> folder = tempfile.mkdtemp()
    >>> _ = save_model(folder, model, task="copy", task_options={"vocab_size": 4})
    >>> loaded = load_model(folder)
    >>> ids = torch.tensor([[8, 1, 2, 9]])
    >>> torch.equal(loaded.model(ids), model.eval()(ids))
    True

    Raises:
        ValueError: an unknown model name; a name or options that are not how the model
            was built (its weights would not fit them); options or task options JSON
            cannot hold.
    """
    build = _build(model, name, options, task, task_options)
    folder = Path(folder)
    weights = {k: v.detach().cpu().contiguous().clone() for k, v in model.state_dict().items()}
    for key, value in weights.items():
        if value.is_floating_point() and not bool(torch.isfinite(value).all()):
            raise ValueError(f"model: its {key} holds NaN or infinite values; not saved")
    floats = [v.dtype for v in weights.values() if v.is_floating_point()]
    blob = save_safetensors(weights)
    description = {
        "format": FORMAT,
        "memrnn_version": __version__,
        "model": build.name,
        "input_size": build.input_size,
        "output_size": build.output_size,
        "options": dict(build.options),
        "task": _task_entry(task, task_options),
        "weights_sha256": hashlib.sha256(blob).hexdigest(),
    }
    if floats and floats[0] != torch.float32:  # loaded back in the dtype it was saved in
        description["dtype"] = str(floats[0]).removeprefix("torch.")
    if selection:
        description["selection"] = dict(selection)
    _json_text("options", description)  # what JSON cannot hold is named here
    description["description_sha256"] = _description_sha256(description)
    text = _json_text("options", description)
    write_atomic(folder / WEIGHTS, lambda f: f.write(blob))
    write_atomic(folder / DESCRIPTION, lambda f: f.write(text.encode() + b"\n"))
    return folder / DESCRIPTION


def _description_sha256(description: Mapping[str, Any]) -> str:
    """The SHA-256 of ``description`` but its own checksum, as canonical JSON: an edit
    of ``model.json`` (a vocabulary entry renamed) is found when it is loaded."""
    rest = {k: v for k, v in description.items() if k != "description_sha256"}
    text = json.dumps(rest, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()


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
    kinds: dict[str, tuple[type, ...]] = {
        "model": (str,),
        "options": (dict,),
        "task": (dict, type(None)),
        "memrnn_version": (str,),
        "weights_sha256": (str,),
        "selection": (dict, type(None)),
    }
    for key, kind in kinds.items():
        if not isinstance(found.get(key), kind):
            raise UserError(
                f"{path}: damaged model description (its {key!r} is not a {kind[0].__name__})"
            )
    # every save since the checksum was added has one; an older description has none
    if "description_sha256" in found and found["description_sha256"] != _description_sha256(found):
        raise UserError(
            f"{path}: changed after it was saved (its description_sha256 does not match "
            "what it says); save the model again rather than edit this file"
        )
    # the sizes: in every description but those of memrnn 0.1.0, which took them from the task
    for key in SIZES:
        size = found.get(key)
        if key in found and (not isinstance(size, int) or isinstance(size, bool) or size < 1):
            raise UserError(f"{path}: damaged model description (its {key!r} is not a size)")
    task = found["task"]
    if task is None:
        if "input_size" not in found or "output_size" not in found:
            raise UserError(f"{path}: damaged model description (no task and no sizes)")
    elif not isinstance(task.get("name"), str) or not isinstance(task.get("options"), dict):
        raise UserError(f"{path}: damaged model description (its 'task' needs a name and options)")
    return found


def _dtype(name: object, path: Path) -> torch.dtype:
    """The floating dtype ``name`` ("bfloat16") that a description records."""
    dtype = getattr(torch, name, None) if isinstance(name, str) else None
    if not isinstance(dtype, torch.dtype) or not dtype.is_floating_point:
        raise UserError(f"{path}: damaged model description (its dtype {name!r})")
    return dtype


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
        task = _make_task(entry) if entry is not None else None
        sizes = [int(found[k]) if k in found else int(getattr(task, k)) for k in SIZES]
        if task is not None and sizes != [task.input_size, task.output_size]:
            raise ValueError(
                f"sizes {sizes} do not fit the task's {[task.input_size, task.output_size]}"
            )
        with torch.random.fork_rng(devices=[]):  # initial weights, overwritten below
            model = build_model(found["model"], sizes[0], sizes[1], **options)
        model.to(_dtype(found.get("dtype", "float32"), path))
        model.load_state_dict(weights, strict=True)
    except (ValueError, TypeError, RuntimeError) as error:
        reason = " ".join(str(error).split())
        raise UserError(f"{path}: cannot rebuild the model it describes ({reason})") from None
    return SavedModel(
        model.to(device).eval(),
        found["model"],
        options,
        task,
        entry["options"] if entry is not None else {},
        found["memrnn_version"],
        found.get("selection") or {},
    )
