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


def _resume_pair(*, save_optimizer=True, save_key=True, resume_from="step", label="split"):
    """start_run / resume_run with one deliberate mistake switched on."""
    opt_save = "optimizer=ocp.args.StandardSave(nnx.state(optimizer))," if save_optimizer else ""
    opt_restore = (
        "optimizer=ocp.args.StandardRestore(nnx.state(optimizer))," if save_optimizer else ""
    )
    opt_update = 'nnx.update(optimizer, restored["optimizer"])' if save_optimizer else ""
    key_save = 'data=ocp.args.StandardSave({"key": data_key}),' if save_key else ""
    key_restore = 'data=ocp.args.StandardRestore({"key": data_key}),' if save_key else ""
    key_update = (
        'data_key = restored["data"]["key"]' if save_key else "data_key = jax.random.key(DATA_SEED)"
    )
    return f"""
def start_run(directory, split):
    model, optimizer = make_model_and_optimizer()
    data_key = jax.random.key(DATA_SEED)
    losses = []
    for _ in range(split):
        data_key, (x, y) = next_batch(data_key)
        losses.append(float(train_step(model, optimizer, x, y)))
    with ocp.CheckpointManager(Path(directory).absolute()) as manager:
        manager.save(
            {label},
            args=ocp.args.Composite(
                params=ocp.args.StandardSave(nnx.state(model, nnx.Param)),
                {opt_save}
                {key_save}
            ),
        )
    return losses


def resume_run(directory, total_steps):
    model, optimizer = make_model_and_optimizer(seed=1)
    data_key = jax.random.key(DATA_SEED + 1)
    with ocp.CheckpointManager(Path(directory).absolute()) as manager:
        step = manager.latest_step()
        restored = manager.restore(
            step,
            args=ocp.args.Composite(
                params=ocp.args.StandardRestore(nnx.state(model, nnx.Param)),
                {opt_restore}
                {key_restore}
            ),
        )
    nnx.update(model, restored["params"])
    {opt_update}
    {key_update}
    losses = []
    for _ in range({resume_from}, total_steps):
        data_key, (x, y) = next_batch(data_key)
        losses.append(float(train_step(model, optimizer, x, y)))
    return model, optimizer, losses
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
    "one combined item holding params and optimizer": {
        "task2-solution": """
def open_manager(directory, every, keep):
    options = ocp.CheckpointManagerOptions(save_interval_steps=every, max_to_keep=keep)
    return ocp.CheckpointManager(Path(directory).absolute(), options=options)


def save_step(manager, step, model, optimizer):
    state = {"params": nnx.state(model, nnx.Param), "optimizer": nnx.state(optimizer)}
    return manager.save(step, args=ocp.args.Composite(state=ocp.args.StandardSave(state)))


def resume(manager, model, optimizer):
    manager.wait_until_finished()
    step = manager.latest_step()
    if step is None:
        return 0
    target = {"params": nnx.state(model, nnx.Param), "optimizer": nnx.state(optimizer)}
    restored = manager.restore(
        step, args=ocp.args.Composite(state=ocp.args.StandardRestore(target))
    )["state"]
    nnx.update(model, restored["params"])
    nnx.update(optimizer, restored["optimizer"])
    return step
""",
    },
    "one unnamed item (the manager's default) holding both trees": {
        "task2-solution": """
def open_manager(directory, every, keep):
    options = ocp.CheckpointManagerOptions(save_interval_steps=every, max_to_keep=keep)
    return ocp.CheckpointManager(Path(directory).absolute(), options=options)


def save_step(manager, step, model, optimizer):
    state = {"params": nnx.state(model, nnx.Param), "optimizer": nnx.state(optimizer)}
    return manager.save(step, args=ocp.args.StandardSave(state))


def resume(manager, model, optimizer):
    manager.wait_until_finished()
    step = manager.latest_step()
    if step is None:
        return 0
    target = {"params": nnx.state(model, nnx.Param), "optimizer": nnx.state(optimizer)}
    restored = manager.restore(step, args=ocp.args.StandardRestore(target))
    nnx.update(model, restored["params"])
    nnx.update(optimizer, restored["optimizer"])
    return step
""",
    },
    "only the parameters are checkpointed": {
        "task3-solution": _resume_pair(save_optimizer=False),
    },
    "data stream restarted from DATA_SEED (its key not checkpointed)": {
        "task3-solution": _resume_pair(save_key=False),
    },
    "resumes one step too late": {
        "task3-solution": _resume_pair(resume_from="step + 1"),
    },
    "checkpoint labelled with the last finished step index": {
        "task3-solution": _resume_pair(label="split - 1"),
    },
    "parameters from disk, old optimizer and key carried over in globals": {
        "task3-solution": """
_CARRY = {}


def start_run(directory, split):
    model, optimizer = make_model_and_optimizer()
    data_key = jax.random.key(DATA_SEED)
    losses = []
    for _ in range(split):
        data_key, (x, y) = next_batch(data_key)
        losses.append(float(train_step(model, optimizer, x, y)))
    _CARRY.update(optimizer=optimizer, key=data_key, step=split)
    with ocp.StandardCheckpointer() as checkpointer:
        checkpointer.save(Path(directory).absolute() / "params", nnx.state(model, nnx.Param))
    return losses


def resume_run(directory, total_steps):
    model, _ = make_model_and_optimizer(seed=1)
    with ocp.StandardCheckpointer() as checkpointer:
        params = checkpointer.restore(
            Path(directory).absolute() / "params", nnx.state(model, nnx.Param)
        )
    nnx.update(model, params)
    optimizer, data_key = _CARRY["optimizer"], _CARRY["key"]
    losses = []
    for _ in range(_CARRY["step"], total_steps):
        data_key, (x, y) = next_batch(data_key)
        losses.append(float(train_step(model, optimizer, x, y)))
    return model, optimizer, losses
""",
    },
    "restore onto the abstract state as it is (the saved layout comes back)": {
        "task4-solution": """
def restore_sharded(make_model, directory, mesh):
    abstract = nnx.eval_shape(make_model)
    graphdef, abstract_params, rest = nnx.split(abstract, nnx.Param, ...)
    with ocp.StandardCheckpointer() as checkpointer:
        params = checkpointer.restore(Path(directory).absolute(), abstract_params)
    return nnx.merge(graphdef, params, rest)
""",
    },
    "kernels split along the input dimension": {
        "task4-solution": """
def restore_sharded(make_model, directory, mesh):
    abstract = nnx.eval_shape(make_model)
    graphdef, abstract_params, rest = nnx.split(abstract, nnx.Param, ...)
    target = jax.tree.map(
        lambda a: jax.ShapeDtypeStruct(
            a.shape, a.dtype, sharding=NamedSharding(mesh, P("model") if a.ndim == 2 else P())
        ),
        abstract_params,
    )
    with ocp.StandardCheckpointer() as checkpointer:
        params = checkpointer.restore(Path(directory).absolute(), target)
    return nnx.merge(graphdef, params, rest)
""",
    },
    "every parameter replicated": {
        "task4-solution": """
def restore_sharded(make_model, directory, mesh):
    abstract = nnx.eval_shape(make_model)
    graphdef, abstract_params, rest = nnx.split(abstract, nnx.Param, ...)
    replicated = NamedSharding(mesh, P())
    target = jax.tree.map(
        lambda a: jax.ShapeDtypeStruct(a.shape, a.dtype, sharding=replicated), abstract_params
    )
    with ocp.StandardCheckpointer() as checkpointer:
        params = checkpointer.restore(Path(directory).absolute(), target)
    return nnx.merge(graphdef, params, rest)
""",
    },
    "a real model is built, restored, then moved with device_put": {
        "task4-solution": """
def restore_sharded(make_model, directory, mesh):
    model = make_model()
    with ocp.StandardCheckpointer() as checkpointer:
        params = checkpointer.restore(Path(directory).absolute(), nnx.state(model, nnx.Param))
    params = jax.tree.map(
        lambda a: jax.device_put(
            a, NamedSharding(mesh, P(None, "model") if a.ndim == 2 else P())
        ),
        params,
    )
    nnx.update(model, params)
    return model
""",
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
    "StandardCheckpointer, one dict with the step inside, abstract targets": {
        "task3-solution": """
def start_run(directory, split):
    model, optimizer = make_model_and_optimizer()
    key = jax.random.key(DATA_SEED)
    losses = []
    for _ in range(split):
        key, batch = next_batch(key)
        losses.append(float(train_step(model, optimizer, *batch)))
    state = {
        "model": nnx.state(model, nnx.Param),
        "opt": nnx.state(optimizer),
        "key": key,
        "step": jnp.asarray(split),
    }
    with ocp.StandardCheckpointer() as checkpointer:
        checkpointer.save(Path(directory).resolve() / "ckpt", state, force=True)
    return losses


def resume_run(directory, total_steps):
    model, optimizer = make_model_and_optimizer(seed=1)
    abstract_model, abstract_opt = nnx.eval_shape(make_model_and_optimizer)
    target = {
        "model": nnx.state(abstract_model, nnx.Param),
        "opt": nnx.state(abstract_opt),
        "key": jax.eval_shape(lambda: jax.random.key(0)),
        "step": jax.ShapeDtypeStruct((), jnp.int32),
    }
    with ocp.StandardCheckpointer() as checkpointer:
        state = checkpointer.restore(Path(directory).resolve() / "ckpt", target)
    nnx.update(model, state["model"])
    nnx.update(optimizer, state["opt"])
    key, losses = state["key"], []
    for _ in range(int(state["step"]), total_steps):
        key, batch = next_batch(key)
        losses.append(float(train_step(model, optimizer, *batch)))
    return model, optimizer, losses
""",
    },
    "the data stream replayed from DATA_SEED up to the saved step": {
        "task3-solution": """
import os


def start_run(directory, split):
    model, optimizer = make_model_and_optimizer()
    data_key = jax.random.key(DATA_SEED)
    losses = []
    for _ in range(split):
        data_key, (x, y) = next_batch(data_key)
        losses.append(float(train_step(model, optimizer, x, y)))
    manager = ocp.CheckpointManager(os.path.abspath(directory))
    manager.save(
        split,
        args=ocp.args.Composite(
            params=ocp.args.StandardSave(nnx.state(model, nnx.Param)),
            optimizer=ocp.args.StandardSave(nnx.state(optimizer)),
        ),
    )
    manager.wait_until_finished()
    manager.close()
    return losses


def resume_run(directory, total_steps):
    model, optimizer = make_model_and_optimizer(seed=1)
    manager = ocp.CheckpointManager(os.path.abspath(directory))
    step = manager.latest_step()
    restored = manager.restore(
        step,
        args=ocp.args.Composite(
            params=ocp.args.StandardRestore(nnx.state(model, nnx.Param)),
            optimizer=ocp.args.StandardRestore(nnx.state(optimizer)),
        ),
    )
    manager.close()
    nnx.update(model, restored["params"])
    nnx.update(optimizer, restored["optimizer"])
    data_key = jax.random.key(DATA_SEED)
    for _ in range(step):  # fast-forward the stream: it is deterministic
        data_key, _ = next_batch(data_key)
    losses = []
    for _ in range(step, total_steps):
        data_key, (x, y) = next_batch(data_key)
        losses.append(float(train_step(model, optimizer, x, y)))
    return model, optimizer, losses
""",
    },
    "sharding chosen by the leaf's name, restored through a Checkpointer with StandardRestore": {
        "task4-solution": """
def restore_sharded(make_model, directory, mesh):
    graphdef, abstract_params = nnx.split(nnx.eval_shape(make_model), nnx.Param)

    def place(path, leaf):
        name = jax.tree_util.keystr(path)
        spec = P(None, "model") if "kernel" in name else P()
        return jax.ShapeDtypeStruct(leaf.shape, leaf.dtype, sharding=NamedSharding(mesh, spec))

    target = jax.tree_util.tree_map_with_path(place, abstract_params)
    checkpointer = ocp.Checkpointer(ocp.StandardCheckpointHandler())
    params = checkpointer.restore(str(Path(directory).absolute()), ocp.args.StandardRestore(target))
    checkpointer.close()
    return nnx.merge(graphdef, params)
""",
    },
}
