"""Wrong-but-plausible and alternative-correct answers for solutions/08_orbax_checkpointing."""

_RESTORE_OK = """

def restore_params(make_model, directory):
    abstract = nnx.eval_shape(make_model)
    graphdef, abstract_params, rest = nnx.split(abstract, nnx.Param, ...)
    with ocp.StandardCheckpointer() as checkpointer:
        params = checkpointer.restore(Path(directory).absolute(), abstract_params)
    return nnx.merge(graphdef, params, rest)
"""

_SAVE_OK = """
def save_params(model, directory):
    path = Path(directory).absolute()
    with ocp.StandardCheckpointer() as checkpointer:
        checkpointer.save(path, nnx.state(model, nnx.Param), force=True)
    return path
"""

_OPEN_AND_SAVE_OK = """
def open_manager(directory, every, keep):
    options = ocp.CheckpointManagerOptions(save_interval_steps=every, max_to_keep=keep)
    return ocp.CheckpointManager(Path(directory).absolute(), options=options)


def save_step(manager, step, model, optimizer):
    return manager.save(
        step,
        args=ocp.args.Composite(
            params=ocp.args.StandardSave(nnx.state(model, nnx.Param)),
            optimizer=ocp.args.StandardSave(nnx.state(optimizer)),
        ),
    )
"""

_RESUME_OK = """

def resume(manager, model, optimizer):
    manager.wait_until_finished()
    step = manager.latest_step()
    if step is None:
        return 0
    restored = manager.restore(
        step,
        args=ocp.args.Composite(
            params=ocp.args.StandardRestore(nnx.state(model, nnx.Param)),
            optimizer=ocp.args.StandardRestore(nnx.state(optimizer)),
        ),
    )
    nnx.update(model, restored["params"])
    nnx.update(optimizer, restored["optimizer"])
    return step
"""


def _train_resumed(*, restore_optimizer=True, resume_from="step", save_step="split"):
    """A train_resumed with one deliberate mistake switched on."""
    opt_save = "optimizer=ocp.args.StandardSave(nnx.state(optimizer))," if restore_optimizer else ""
    opt_restore = (
        "optimizer=ocp.args.StandardRestore(nnx.state(optimizer))," if restore_optimizer else ""
    )
    opt_update = 'nnx.update(optimizer, restored["optimizer"])' if restore_optimizer else ""
    return f"""
def train_resumed(directory, total_steps, split):
    directory = Path(directory).absolute()
    model, optimizer = make_model_and_optimizer()
    losses = [float(train_step(model, optimizer, *batch_for(s))) for s in range(split)]
    with ocp.CheckpointManager(directory) as manager:
        manager.save(
            {save_step},
            args=ocp.args.Composite(
                params=ocp.args.StandardSave(nnx.state(model, nnx.Param)),
                {opt_save}
            ),
        )
    model, optimizer = make_model_and_optimizer(seed=1)
    with ocp.CheckpointManager(directory) as manager:
        step = manager.latest_step()
        restored = manager.restore(
            step,
            args=ocp.args.Composite(
                params=ocp.args.StandardRestore(nnx.state(model, nnx.Param)),
                {opt_restore}
            ),
        )
    nnx.update(model, restored["params"])
    {opt_update}
    start = {resume_from}
    for s in range(start, total_steps):
        losses.append(float(train_step(model, optimizer, *batch_for(s))))
    return model, losses
"""


WRONG = {
    "relative path handed to Orbax as it is": {
        "task1-solution": """
def save_params(model, directory):
    with ocp.StandardCheckpointer() as checkpointer:
        checkpointer.save(directory, nnx.state(model, nnx.Param), force=True)
    return Path(directory)
"""
        + _RESTORE_OK,
    },
    "existing checkpoint not replaced": {
        "task1-solution": """
def save_params(model, directory):
    path = Path(directory).absolute()
    with ocp.StandardCheckpointer() as checkpointer:
        checkpointer.save(path, nnx.state(model, nnx.Param))
    return path
"""
        + _RESTORE_OK,
    },
    "a real model is built and overwritten": {
        "task1-solution": _SAVE_OK
        + """

def restore_params(make_model, directory):
    model = make_model()
    with ocp.StandardCheckpointer() as checkpointer:
        params = checkpointer.restore(Path(directory).absolute(), nnx.state(model, nnx.Param))
    nnx.update(model, params)
    return model
""",
    },
    "restored state returned instead of a model": {
        "task1-solution": _SAVE_OK
        + """

def restore_params(make_model, directory):
    abstract = nnx.eval_shape(make_model)
    with ocp.StandardCheckpointer() as checkpointer:
        return checkpointer.restore(Path(directory).absolute(), nnx.state(abstract, nnx.Param))
""",
    },
    "resume from the oldest kept checkpoint": {
        "task2-solution": _OPEN_AND_SAVE_OK
        + """

def resume(manager, model, optimizer):
    manager.wait_until_finished()
    steps = manager.all_steps()
    if not steps:
        return 0
    restored = manager.restore(
        steps[0],
        args=ocp.args.Composite(
            params=ocp.args.StandardRestore(nnx.state(model, nnx.Param)),
            optimizer=ocp.args.StandardRestore(nnx.state(optimizer)),
        ),
    )
    nnx.update(model, restored["params"])
    nnx.update(optimizer, restored["optimizer"])
    return steps[0]
""",
    },
    "max_to_keep not set": {
        "task2-solution": """
def open_manager(directory, every, keep):
    options = ocp.CheckpointManagerOptions(save_interval_steps=every)
    return ocp.CheckpointManager(Path(directory).absolute(), options=options)


def save_step(manager, step, model, optimizer):
    return manager.save(
        step,
        args=ocp.args.Composite(
            params=ocp.args.StandardSave(nnx.state(model, nnx.Param)),
            optimizer=ocp.args.StandardSave(nnx.state(optimizer)),
        ),
    )
"""
        + _RESUME_OK,
    },
    "optimizer state not restored": {
        "task2-solution": _OPEN_AND_SAVE_OK
        + """

def resume(manager, model, optimizer):
    manager.wait_until_finished()
    step = manager.latest_step()
    if step is None:
        return 0
    restored = manager.restore(
        step,
        args=ocp.args.Composite(params=ocp.args.StandardRestore(nnx.state(model, nnx.Param))),
    )
    nnx.update(model, restored["params"])
    return step
""",
    },
    "every N steps ignored (saves each step)": {
        "task2-solution": """
def open_manager(directory, every, keep):
    options = ocp.CheckpointManagerOptions(max_to_keep=keep)
    return ocp.CheckpointManager(Path(directory).absolute(), options=options)


def save_step(manager, step, model, optimizer):
    return manager.save(
        step,
        args=ocp.args.Composite(
            params=ocp.args.StandardSave(nnx.state(model, nnx.Param)),
            optimizer=ocp.args.StandardSave(nnx.state(optimizer)),
        ),
    )
"""
        + _RESUME_OK,
    },
    "only the parameters are checkpointed": {
        "task3-solution": _train_resumed(restore_optimizer=False),
    },
    "data stream restarts at batch 0": {
        "task3-solution": _train_resumed(resume_from="0"),
    },
    "resumes one step too late": {
        "task3-solution": _train_resumed(resume_from="step + 1"),
    },
    "checkpoint labelled with the last finished step index": {
        "task3-solution": _train_resumed(save_step="split - 1"),
    },
}

CORRECT = {
    "merge without a leftover filter, resolve() instead of absolute()": {
        "task1-solution": """
import os.path


def save_params(model, directory):
    path = Path(os.path.abspath(directory))
    if path.exists():
        shutil.rmtree(path)
    checkpointer = ocp.StandardCheckpointer()
    checkpointer.save(path, nnx.state(model, nnx.Param))
    checkpointer.wait_until_finished()
    checkpointer.close()
    return path


def restore_params(make_model, directory):
    abstract = nnx.eval_shape(make_model)
    graphdef, abstract_params = nnx.split(abstract, nnx.Param)
    checkpointer = ocp.StandardCheckpointer()
    params = checkpointer.restore(Path(directory).resolve(), abstract_params)
    checkpointer.close()
    return nnx.merge(graphdef, params)
""",
    },
    "abstract restore targets and an explicit close": {
        "task2-solution": """
import os


def open_manager(directory, every, keep):
    return ocp.CheckpointManager(
        os.path.abspath(directory),
        options=ocp.CheckpointManagerOptions(
            max_to_keep=keep, save_interval_steps=every, enable_async_checkpointing=True
        ),
    )


def save_step(manager, step, model, optimizer):
    items = {
        "params": ocp.args.StandardSave(nnx.state(model, nnx.Param)),
        "optimizer": ocp.args.StandardSave(nnx.state(optimizer)),
    }
    return manager.save(step, args=ocp.args.Composite(**items))


def resume(manager, model, optimizer):
    manager.wait_until_finished()
    if not manager.all_steps():
        return 0
    latest = max(manager.all_steps())
    targets = {
        "params": jax.tree.map(
            lambda a: jax.ShapeDtypeStruct(a.shape, a.dtype), nnx.state(model, nnx.Param)
        ),
        "optimizer": jax.tree.map(
            lambda a: jax.ShapeDtypeStruct(a.shape, a.dtype), nnx.state(optimizer)
        ),
    }
    restored = manager.restore(
        latest,
        args=ocp.args.Composite(**{k: ocp.args.StandardRestore(v) for k, v in targets.items()}),
    )
    nnx.update(model, restored["params"])
    nnx.update(optimizer, restored["optimizer"])
    return latest
""",
    },
    "whole optimizer state with StandardCheckpointer, abstract targets": {
        "task3-solution": """
def train_resumed(directory, total_steps, split):
    path = Path(directory).absolute() / f"step_{split}"
    model, optimizer = make_model_and_optimizer()
    losses = []
    for s in range(split):
        losses.append(float(train_step(model, optimizer, *batch_for(s))))
    checkpoint = {"model": nnx.state(model, nnx.Param), "opt": nnx.state(optimizer)}
    with ocp.StandardCheckpointer() as checkpointer:
        checkpointer.save(path, checkpoint)
    del model, optimizer, checkpoint

    model, optimizer = make_model_and_optimizer(seed=1)
    abstract_model, abstract_opt = nnx.eval_shape(make_model_and_optimizer)
    target = {"model": nnx.state(abstract_model, nnx.Param), "opt": nnx.state(abstract_opt)}
    with ocp.StandardCheckpointer() as checkpointer:
        restored = checkpointer.restore(path, target)
    nnx.update(model, restored["model"])
    nnx.update(optimizer, restored["opt"])
    for s in range(split, total_steps):
        losses.append(float(train_step(model, optimizer, *batch_for(s))))
    return model, losses
""",
    },
}
