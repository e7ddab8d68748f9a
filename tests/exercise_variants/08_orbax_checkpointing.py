"""Wrong-but-plausible and alternative-correct answers for solutions/08_orbax_checkpointing."""

_RESTORE_OK = """

def restore_params(make_model, directory):
    graphdef, abstract_params, rest = nnx.split(nnx.eval_shape(make_model), nnx.Param, ...)
    device = jax.sharding.SingleDeviceSharding(jax.devices()[0])
    target = jax.tree.map(
        lambda a: jax.ShapeDtypeStruct(a.shape, a.dtype, sharding=device), abstract_params
    )
    params = ocp.v1.load(Path(directory).absolute(), target)
    return nnx.merge(graphdef, params, rest)
"""

_SAVE_OK = """
def save_params(model, directory):
    path = Path(directory).absolute()
    ocp.v1.save(path, nnx.state(model, nnx.Param), overwrite=True)
    return path
"""

_EVERY_AND_FIRST = """
def _first_and_every(every):
    decisions = ocp.v1.training.save_decision_policies
    return decisions.AnySavePolicy(
        [decisions.InitialSavePolicy(), decisions.FixedIntervalPolicy(every)]
    )
"""

_OPEN_AND_SAVE_OK = (
    _EVERY_AND_FIRST
    + """

def open_checkpointer(directory, every, keep):
    return ocp.v1.training.Checkpointer(
        Path(directory).absolute(),
        save_decision_policy=_first_and_every(every),
        preservation_policy=ocp.v1.training.preservation_policies.LatestN(keep),
    )


def save_step(checkpointer, step, model, optimizer):
    return checkpointer.save_checkpointables(
        step, {"params": nnx.state(model, nnx.Param), "optimizer": nnx.state(optimizer)}
    )
"""
)

_SAVE_STEP_OK = """

def save_step(checkpointer, step, model, optimizer):
    return checkpointer.save_checkpointables(
        step, {"params": nnx.state(model, nnx.Param), "optimizer": nnx.state(optimizer)}
    )
"""

_RESUME_OK = """

def resume(checkpointer, model, optimizer):
    checkpointer.wait()
    if checkpointer.latest is None:
        return 0
    step = checkpointer.latest.step
    restored = checkpointer.load_checkpointables(
        step, {"params": nnx.state(model, nnx.Param), "optimizer": nnx.state(optimizer)}
    )
    nnx.update(model, restored["params"])
    nnx.update(optimizer, restored["optimizer"])
    return step
"""


def _resume_pair(*, save_optimizer=True, save_key=True, resume_from="step", label="split"):
    """start_run / resume_run with one deliberate mistake switched on."""
    opt_item = '"optimizer": nnx.state(optimizer),' if save_optimizer else ""
    opt_update = 'nnx.update(optimizer, restored["optimizer"])' if save_optimizer else ""
    key_item = '"data": {"key": data_key},' if save_key else ""
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
    with ocp.v1.training.Checkpointer(Path(directory).absolute()) as checkpointer:
        checkpointer.save_checkpointables(
            {label},
            {{"params": nnx.state(model, nnx.Param), {opt_item} {key_item}}},
        )
    return losses


def resume_run(directory, total_steps):
    model, optimizer = make_model_and_optimizer(seed=1)
    data_key = jax.random.key(DATA_SEED + 1)
    with ocp.v1.training.Checkpointer(Path(directory).absolute()) as checkpointer:
        step = checkpointer.latest.step
        restored = checkpointer.load_checkpointables(
            step,
            {{"params": nnx.state(model, nnx.Param), {opt_item} {key_item}}},
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
    "restores the copy save_params kept in memory, the disk only as a fallback": {
        "task1-solution": """
_KEPT = {}


def save_params(model, directory):
    path = Path(directory).absolute()
    params = nnx.state(model, nnx.Param)
    ocp.v1.save(path, params, overwrite=True)
    _KEPT[path] = jax.tree.map(jnp.copy, params)
    return path
"""
        + _RESTORE_OK.replace(
            "    params = ocp.v1.load(Path(directory).absolute(), target)",
            "    params = _KEPT.get(Path(directory).absolute())\n"
            "    if params is None:\n"
            "        params = ocp.v1.load(Path(directory).absolute(), target)",
        ),
    },
    "resumes from the copy save_step kept in memory, the disk only as a fallback": {
        "task2-solution": _EVERY_AND_FIRST
        + """

def open_checkpointer(directory, every, keep):
    return ocp.v1.training.Checkpointer(
        Path(directory).absolute(),
        save_decision_policy=_first_and_every(every),
        preservation_policy=ocp.v1.training.preservation_policies.LatestN(keep),
    )


_KEPT = {}


def save_step(checkpointer, step, model, optimizer):
    saved = checkpointer.save_checkpointables(
        step, {"params": nnx.state(model, nnx.Param), "optimizer": nnx.state(optimizer)}
    )
    if saved:
        _KEPT[str(checkpointer.directory)] = step, nnx.clone(model), nnx.clone(optimizer)
    return saved


def resume(checkpointer, model, optimizer):
    checkpointer.wait()
    if str(checkpointer.directory) in _KEPT:
        step, kept_model, kept_optimizer = _KEPT[str(checkpointer.directory)]
        nnx.update(model, nnx.state(kept_model, nnx.Param))
        nnx.update(optimizer, nnx.state(kept_optimizer))
        return step
"""
        + _RESUME_OK.split("    checkpointer.wait()\n", 1)[1],
    },
    "relative path handed to Orbax as it is": {
        "task1-solution": """
def save_params(model, directory):
    ocp.v1.save(directory, nnx.state(model, nnx.Param), overwrite=True)
    return Path(directory)
"""
        + _RESTORE_OK,
    },
    "existing checkpoint not replaced": {
        "task1-solution": """
def save_params(model, directory):
    path = Path(directory).absolute()
    ocp.v1.save(path, nnx.state(model, nnx.Param))
    return path
"""
        + _RESTORE_OK,
    },
    "save_async without waiting for the write": {
        "task1-solution": """
def save_params(model, directory):
    path = Path(directory).absolute()
    ocp.v1.save_async(path, nnx.state(model, nnx.Param), overwrite=True)
    return path
"""
        + _RESTORE_OK,
    },
    "a real model is built and overwritten": {
        "task1-solution": _SAVE_OK
        + """

def restore_params(make_model, directory):
    model = make_model()
    params = ocp.v1.load(Path(directory).absolute(), nnx.state(model, nnx.Param))
    nnx.update(model, params)
    return model
""",
    },
    "restored state returned instead of a model": {
        "task1-solution": _SAVE_OK
        + """

def restore_params(make_model, directory):
    abstract = nnx.eval_shape(make_model)
    return ocp.v1.load(Path(directory).absolute(), nnx.state(abstract, nnx.Param))
""",
    },
    "resume from the oldest kept checkpoint": {
        "task2-solution": _OPEN_AND_SAVE_OK
        + """

def resume(checkpointer, model, optimizer):
    checkpointer.wait()
    if not checkpointer.checkpoints:
        return 0
    step = checkpointer.checkpoints[0].step
    restored = checkpointer.load_checkpointables(
        step, {"params": nnx.state(model, nnx.Param), "optimizer": nnx.state(optimizer)}
    )
    nnx.update(model, restored["params"])
    nnx.update(optimizer, restored["optimizer"])
    return step
""",
    },
    "no preservation policy (every checkpoint is kept)": {
        "task2-solution": _EVERY_AND_FIRST
        + """

def open_checkpointer(directory, every, keep):
    return ocp.v1.training.Checkpointer(
        Path(directory).absolute(), save_decision_policy=_first_and_every(every)
    )
"""
        + _SAVE_STEP_OK
        + _RESUME_OK,
    },
    "the first save is not made (FixedIntervalPolicy alone)": {
        "task2-solution": """
def open_checkpointer(directory, every, keep):
    return ocp.v1.training.Checkpointer(
        Path(directory).absolute(),
        save_decision_policy=ocp.v1.training.save_decision_policies.FixedIntervalPolicy(every),
        preservation_policy=ocp.v1.training.preservation_policies.LatestN(keep),
    )
"""
        + _SAVE_STEP_OK
        + _RESUME_OK,
    },
    "optimizer state not restored": {
        "task2-solution": _OPEN_AND_SAVE_OK
        + """

def resume(checkpointer, model, optimizer):
    checkpointer.wait()
    if checkpointer.latest is None:
        return 0
    step = checkpointer.latest.step
    restored = checkpointer.load_checkpointables(step, {"params": nnx.state(model, nnx.Param)})
    nnx.update(model, restored["params"])
    return step
""",
    },
    "every N steps ignored (the default policy saves whenever it can)": {
        "task2-solution": """
def open_checkpointer(directory, every, keep):
    return ocp.v1.training.Checkpointer(
        Path(directory).absolute(),
        preservation_policy=ocp.v1.training.preservation_policies.LatestN(keep),
    )
"""
        + _SAVE_STEP_OK
        + _RESUME_OK,
    },
    "one checkpointable holding params and optimizer": {
        "task2-solution": _EVERY_AND_FIRST
        + """

def open_checkpointer(directory, every, keep):
    return ocp.v1.training.Checkpointer(
        Path(directory).absolute(),
        save_decision_policy=_first_and_every(every),
        preservation_policy=ocp.v1.training.preservation_policies.LatestN(keep),
    )


def save_step(checkpointer, step, model, optimizer):
    state = {"params": nnx.state(model, nnx.Param), "optimizer": nnx.state(optimizer)}
    return checkpointer.save_checkpointables(step, {"train_state": state})


def resume(checkpointer, model, optimizer):
    checkpointer.wait()
    if checkpointer.latest is None:
        return 0
    step = checkpointer.latest.step
    target = {"params": nnx.state(model, nnx.Param), "optimizer": nnx.state(optimizer)}
    restored = checkpointer.load_checkpointables(step, {"train_state": target})["train_state"]
    nnx.update(model, restored["params"])
    nnx.update(optimizer, restored["optimizer"])
    return step
""",
    },
    "one unnamed pytree (save's default checkpointable) holding both trees": {
        "task2-solution": _EVERY_AND_FIRST
        + """

def open_checkpointer(directory, every, keep):
    return ocp.v1.training.Checkpointer(
        Path(directory).absolute(),
        save_decision_policy=_first_and_every(every),
        preservation_policy=ocp.v1.training.preservation_policies.LatestN(keep),
    )


def save_step(checkpointer, step, model, optimizer):
    state = {"params": nnx.state(model, nnx.Param), "optimizer": nnx.state(optimizer)}
    return checkpointer.save(step, state)


def resume(checkpointer, model, optimizer):
    checkpointer.wait()
    if checkpointer.latest is None:
        return 0
    step = checkpointer.latest.step
    target = {"params": nnx.state(model, nnx.Param), "optimizer": nnx.state(optimizer)}
    restored = checkpointer.load(step, target)
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
    ocp.v1.save(Path(directory).absolute() / "params", nnx.state(model, nnx.Param))
    return losses


def resume_run(directory, total_steps):
    model, _ = make_model_and_optimizer(seed=1)
    params = ocp.v1.load(Path(directory).absolute() / "params", nnx.state(model, nnx.Param))
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
    params = ocp.v1.load(Path(directory).absolute(), abstract_params)
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
    params = ocp.v1.load(Path(directory).absolute(), target)
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
    params = ocp.v1.load(Path(directory).absolute(), target)
    return nnx.merge(graphdef, params, rest)
""",
    },
    "a real model is built, restored, then moved with device_put": {
        "task4-solution": """
def restore_sharded(make_model, directory, mesh):
    model = make_model()
    params = ocp.v1.load(Path(directory).absolute(), nnx.state(model, nnx.Param))
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
    "the first save fixed at step 1 instead of the run's first save": {
        "task2-solution": _EVERY_AND_FIRST.replace(
            "decisions.InitialSavePolicy()", "decisions.SpecificStepsPolicy([1])"
        )
        + _OPEN_AND_SAVE_OK.replace(_EVERY_AND_FIRST, "")
        + _RESUME_OK,
    },
    "start_run saves in the background and returns before the files are complete": {
        "task3-solution": """
_PENDING = []


def start_run(directory, split):
    model, optimizer = make_model_and_optimizer()
    data_key = jax.random.key(DATA_SEED)
    losses = []
    for _ in range(split):
        data_key, (x, y) = next_batch(data_key)
        losses.append(float(train_step(model, optimizer, x, y)))
    state = {
        "params": nnx.state(model, nnx.Param),
        "optimizer": nnx.state(optimizer),
        "key": jax.random.key_data(data_key),
    }
    _PENDING.append(ocp.v1.save_async(Path(directory).absolute(), state, overwrite=True))
    return losses


def resume_run(directory, total_steps):
    for pending in _PENDING:
        pending.result()
    model, optimizer = make_model_and_optimizer(seed=1)
    data_key = jax.random.key(DATA_SEED + 1)
    target = {
        "params": nnx.state(model, nnx.Param),
        "optimizer": nnx.state(optimizer),
        "key": jax.random.key_data(data_key),
    }
    got = ocp.v1.load(Path(directory).absolute(), target)
    nnx.update(model, got["params"])
    nnx.update(optimizer, got["optimizer"])
    data_key = jax.random.wrap_key_data(got["key"])
    losses = []
    for _ in range(int(optimizer.step[...]), total_steps):
        data_key, (x, y) = next_batch(data_key)
        losses.append(float(train_step(model, optimizer, x, y)))
    return model, optimizer, losses
""",
    },
    "loaded in the saved layout onto abstract targets, then moved with device_put": {
        "task4-solution": """
def restore_sharded(make_model, directory, mesh):
    graphdef, abstract, rest = nnx.split(nnx.eval_shape(make_model), nnx.Param, ...)
    loaded = ocp.v1.load(Path(directory).absolute(), abstract)
    placed = jax.tree.map(
        lambda a: jax.device_put(a, NamedSharding(mesh, P(None, "model") if a.ndim == 2 else P())),
        loaded,
    )
    return nnx.merge(graphdef, placed, rest)
""",
    },
    "relative paths resolved against the notebook's WORK folder, not the working directory": {
        "task1-solution": """
def save_params(model, directory):
    path = WORK / directory  # relative paths: inside the notebook's work folder
    ocp.v1.save(path, nnx.state(model, nnx.Param), overwrite=True)
    return path


def restore_params(make_model, directory):
    graphdef, abstract_params, rest = nnx.split(nnx.eval_shape(make_model), nnx.Param, ...)
    params = ocp.v1.load(WORK / directory, abstract_params)
    return nnx.merge(graphdef, params, rest)
""",
    },
    "a relative run folder placed under WORK, not under the working directory": {
        "task2-solution": """
def open_checkpointer(directory, every, keep):
    decisions = ocp.v1.training.save_decision_policies
    return ocp.v1.training.Checkpointer(
        WORK / directory,  # relative runs live in the notebook's work folder
        save_decision_policy=decisions.AnySavePolicy(
            [decisions.InitialSavePolicy(), decisions.FixedIntervalPolicy(every)]
        ),
        preservation_policy=ocp.v1.training.preservation_policies.LatestN(keep),
    )


def save_step(checkpointer, step, model, optimizer):
    return checkpointer.save_checkpointables(
        step, {"params": nnx.state(model, nnx.Param), "optimizer": nnx.state(optimizer)}
    )


def resume(checkpointer, model, optimizer):
    checkpointer.wait()
    if checkpointer.latest is None:
        return 0
    step = checkpointer.latest.step
    restored = checkpointer.load_checkpointables(
        step, {"params": nnx.state(model, nnx.Param), "optimizer": nnx.state(optimizer)}
    )
    nnx.update(model, restored["params"])
    nnx.update(optimizer, restored["optimizer"])
    return step
""",
    },
    "interrupted runs saved and resumed under WORK, whatever the working directory": {
        "task3-solution": """
def start_run(directory, split):
    model, optimizer = make_model_and_optimizer()
    data_key = jax.random.key(DATA_SEED)
    losses = []
    for _ in range(split):
        data_key, (x, y) = next_batch(data_key)
        losses.append(float(train_step(model, optimizer, x, y)))
    with ocp.v1.training.Checkpointer(WORK / directory) as checkpointer:
        checkpointer.save_checkpointables(
            split,
            {
                "params": nnx.state(model, nnx.Param),
                "optimizer": nnx.state(optimizer),
                "data": {"key": data_key},
            },
        )
    return losses


def resume_run(directory, total_steps):
    model, optimizer = make_model_and_optimizer(seed=1)
    data_key = jax.random.key(DATA_SEED + 1)
    with ocp.v1.training.Checkpointer(WORK / directory) as checkpointer:
        step = checkpointer.latest.step
        restored = checkpointer.load_checkpointables(
            step,
            {
                "params": nnx.state(model, nnx.Param),
                "optimizer": nnx.state(optimizer),
                "data": {"key": data_key},
            },
        )
    nnx.update(model, restored["params"])
    nnx.update(optimizer, restored["optimizer"])
    data_key = restored["data"]["key"]
    losses = []
    for _ in range(step, total_steps):
        data_key, (x, y) = next_batch(data_key)
        losses.append(float(train_step(model, optimizer, x, y)))
    return model, optimizer, losses
""",
    },
    "the first save of every Checkpointer kept, checkpoints on disk or not": {
        "task2-solution": """
class _FirstOfThisRunOrEvery(ocp.v1.training.save_decision_policies.SaveDecisionPolicy):
    # the first save of this Checkpointer, then every `every` steps
    def __init__(self, every):
        self.every, self.saved_once = every, False

    def should_save(self, step, previous_steps, *, context):
        first = not self.saved_once
        self.saved_once = True
        return first or step.step % self.every == 0


def open_checkpointer(directory, every, keep):
    return ocp.v1.training.Checkpointer(
        Path(directory).absolute(),
        save_decision_policy=_FirstOfThisRunOrEvery(every),
        preservation_policy=ocp.v1.training.preservation_policies.LatestN(keep),
    )


def save_step(checkpointer, step, model, optimizer):
    return checkpointer.save_checkpointables(
        step, {"params": nnx.state(model, nnx.Param), "optimizer": nnx.state(optimizer)}
    )


def resume(checkpointer, model, optimizer):
    checkpointer.wait()
    if checkpointer.latest is None:
        return 0
    step = checkpointer.latest.step
    restored = checkpointer.load_checkpointables(
        step, {"params": nnx.state(model, nnx.Param), "optimizer": nnx.state(optimizer)}
    )
    nnx.update(model, restored["params"])
    nnx.update(optimizer, restored["optimizer"])
    return step
""",
    },
    'the mesh\'s first axis taken for "model"': {
        "task4-solution": """
def restore_sharded(make_model, directory, mesh):
    abstract = nnx.eval_shape(make_model)
    graphdef, abstract_params, rest = nnx.split(abstract, nnx.Param, ...)
    axis = mesh.axis_names[0]  # the mesh's (only) axis

    def with_sharding(leaf):
        spec = P(None, axis) if leaf.ndim == 2 else P()
        return jax.ShapeDtypeStruct(leaf.shape, leaf.dtype, sharding=NamedSharding(mesh, spec))

    target = jax.tree.map(with_sharding, abstract_params)
    params = ocp.v1.load(Path(directory).absolute(), target)
    return nnx.merge(graphdef, params, rest)
""",
    },
    "restore_params reads the directory save_params wrote last, whatever it is given": {
        "task1-solution": """
_LAST_SAVED = {}


def save_params(model, directory):
    path = Path(directory).absolute()
    ocp.v1.save(path, nnx.state(model, nnx.Param), overwrite=True)
    _LAST_SAVED["path"] = path  # remembered for restore_params
    return path


def restore_params(make_model, directory):
    # bug: reads the checkpoint this process saved last, whatever `directory` says
    where = _LAST_SAVED.get("path", Path(directory).absolute())
    graphdef, abstract_params, rest = nnx.split(nnx.eval_shape(make_model), nnx.Param, ...)
    return nnx.merge(graphdef, ocp.v1.load(where, abstract_params), rest)
""",
    },
    "resume_run reuses the objects start_run kept in memory for that folder": {
        "task3-solution": """
_RUNS = {}  # finished first halves, by checkpoint folder: saves a reload when resumed here


def start_run(directory, split):
    model, optimizer = make_model_and_optimizer()
    data_key = jax.random.key(DATA_SEED)
    losses = []
    for _ in range(split):
        data_key, (x, y) = next_batch(data_key)
        losses.append(float(train_step(model, optimizer, x, y)))
    where = Path(directory).absolute()
    with ocp.v1.training.Checkpointer(where) as checkpointer:
        checkpointer.save_checkpointables(
            split,
            {
                "params": nnx.state(model, nnx.Param),
                "optimizer": nnx.state(optimizer),
                "data": {"key": data_key},
            },
        )
    _RUNS[where] = (split, model, optimizer, data_key)
    return losses


def resume_run(directory, total_steps):
    where = Path(directory).absolute()
    if where in _RUNS:  # resumed in this process: the objects are still here
        step, model, optimizer, data_key = _RUNS.pop(where)
    else:
        model, optimizer = make_model_and_optimizer(seed=1)
        data_key = jax.random.key(DATA_SEED + 1)
        with ocp.v1.training.Checkpointer(where) as checkpointer:
            step = checkpointer.latest.step
            restored = checkpointer.load_checkpointables(
                step,
                {
                    "params": nnx.state(model, nnx.Param),
                    "optimizer": nnx.state(optimizer),
                    "data": {"key": data_key},
                },
            )
        nnx.update(model, restored["params"])
        nnx.update(optimizer, restored["optimizer"])
        data_key = restored["data"]["key"]
    losses = []
    for _ in range(step, total_steps):
        data_key, (x, y) = next_batch(data_key)
        losses.append(float(train_step(model, optimizer, x, y)))
    return model, optimizer, losses
""",
    },
    'the mesh\'s last axis taken for "model"': {
        "task4-solution": """
def restore_sharded(make_model, directory, mesh):
    abstract = nnx.eval_shape(make_model)
    graphdef, abstract_params, rest = nnx.split(abstract, nnx.Param, ...)
    model_axis = mesh.axis_names[-1]  # the model axis comes last, after any data axis

    def with_sharding(leaf):
        spec = P(None, model_axis) if leaf.ndim == 2 else P()
        return jax.ShapeDtypeStruct(leaf.shape, leaf.dtype, sharding=NamedSharding(mesh, spec))

    target = jax.tree.map(with_sharding, abstract_params)
    params = ocp.v1.load(Path(directory).absolute(), target)
    return nnx.merge(graphdef, params, rest)
""",
    },
    "restore_sharded reads replicated onto the mesh, then device_puts into the layout": {
        "task4-solution": """
def restore_sharded(make_model, directory, mesh):
    abstract = nnx.eval_shape(make_model)
    graphdef, abstract_params, rest = nnx.split(abstract, nnx.Param, ...)
    # read every parameter onto the mesh (replicated: each device gets the whole array) ...
    everywhere = NamedSharding(mesh, P())
    target = jax.tree.map(
        lambda a: jax.ShapeDtypeStruct(a.shape, a.dtype, sharding=everywhere), abstract_params
    )
    params = ocp.v1.load(Path(directory).absolute(), target)
    # ... then cut the kernels along their output dimension
    params = jax.tree.map(
        lambda a: jax.device_put(a, NamedSharding(mesh, P(None, "model") if a.ndim == 2 else P())),
        params,
    )
    return nnx.merge(graphdef, params, rest)
""",
    },
    "restore_params builds the model under nnx.jit, then loads into it": {
        "task1-solution": """
def save_params(model, directory):
    path = Path(directory).absolute()
    ocp.v1.save(path, nnx.state(model, nnx.Param), overwrite=True)
    return path


def restore_params(make_model, directory):
    # build the model inside nnx.jit (compiled init, fast), then load the checkpoint into it
    model = nnx.jit(make_model)()
    params = ocp.v1.load(Path(directory).absolute(), nnx.state(model, nnx.Param))
    nnx.update(model, params)
    return model
""",
    },
    "restore_sharded builds the model under nnx.jit with sharding constraints, then loads": {
        "task4-solution": """
def restore_sharded(make_model, directory, mesh):
    def spec(a):
        return P(None, "model") if a.ndim == 2 else P()

    # Flax's recipe for a sharded model: initialise it under jit with sharding constraints,
    # so every parameter is created directly in its layout on the mesh
    @nnx.jit
    def create_sharded():
        model = make_model()
        state = nnx.state(model, nnx.Param)
        shardings = jax.tree.map(lambda a: NamedSharding(mesh, spec(a)), state)
        nnx.update(model, jax.lax.with_sharding_constraint(state, shardings))
        return model

    model = create_sharded()
    # the parameters' shardings are the target's: Orbax reads straight into that layout
    params = ocp.v1.load(Path(directory).absolute(), nnx.state(model, nnx.Param))
    nnx.update(model, params)
    return model
""",
    },
}

CORRECT = {
    "abstract targets without shardings (Orbax's warning is silenced by the setup cell)": {
        "task1-solution": """
def absolute_path(directory):
    directory = Path(directory)
    return directory if directory.is_absolute() else Path.cwd() / directory


def save_params(model, directory):
    where = absolute_path(directory)
    ocp.v1.save_async(where, nnx.state(model, nnx.Param), overwrite=True).result()
    return where


def restore_params(make_model, directory):
    graph, abstract_params, others = nnx.split(nnx.eval_shape(make_model), nnx.Param, ...)
    return nnx.merge(graph, ocp.v1.load(absolute_path(directory), abstract_params), others)
""",
    },
    "biases as P(None), the same layout as P()": {
        "task4-solution": """
def restore_sharded(make_model, directory, mesh):
    graphdef, abstract, rest = nnx.split(nnx.eval_shape(make_model), nnx.Param, ...)

    def target(a):
        spec = P(None, "model") if a.ndim == 2 else P(*([None] * a.ndim))
        return jax.ShapeDtypeStruct(a.shape, a.dtype, sharding=NamedSharding(mesh, spec))

    params = ocp.v1.load(Path(directory).absolute(), jax.tree.map(target, abstract))
    return nnx.merge(graphdef, params, rest)
""",
    },
    "the legacy V0 StandardCheckpointer, a leftover-free merge, resolve()": {
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
    "save_async then result(), abstract targets, max() of the steps, an explicit close": {
        "task2-solution": """
import os


def open_checkpointer(directory, every, keep):
    policies = ocp.v1.training.save_decision_policies
    return ocp.v1.training.Checkpointer(
        os.path.abspath(directory),
        preservation_policy=ocp.v1.training.preservation_policies.LatestN(n=keep),
        save_decision_policy=policies.AnySavePolicy(
            [policies.FixedIntervalPolicy(interval=every), policies.InitialSavePolicy()]
        ),
    )


def save_step(checkpointer, step, model, optimizer):
    items = {"params": nnx.state(model, nnx.Param), "optimizer": nnx.state(optimizer)}
    response = checkpointer.save_checkpointables_async(step, items)
    return response is not None and response.result()


def resume(checkpointer, model, optimizer):
    checkpointer.wait()
    if not checkpointer.checkpoints:
        return 0
    latest = max(c.step for c in checkpointer.checkpoints)
    device = jax.sharding.SingleDeviceSharding(jax.devices()[0])

    def abstract(tree):
        return jax.tree.map(
            lambda a: jax.ShapeDtypeStruct(a.shape, a.dtype, sharding=device), tree
        )

    restored = checkpointer.load_checkpointables(
        latest,
        {
            "params": abstract(nnx.state(model, nnx.Param)),
            "optimizer": abstract(nnx.state(optimizer)),
        },
    )
    nnx.update(model, restored["params"])
    nnx.update(optimizer, restored["optimizer"])
    return latest
""",
    },
    "ocp.v1.save of one dict with the step inside, abstract targets": {
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
    ocp.v1.save(Path(directory).resolve() / "ckpt", state, overwrite=True)
    return losses


def resume_run(directory, total_steps):
    model, optimizer = make_model_and_optimizer(seed=1)
    abstract_model, abstract_opt = nnx.eval_shape(make_model_and_optimizer)
    device = jax.sharding.SingleDeviceSharding(jax.devices()[0])
    target = jax.tree.map(
        lambda a: jax.ShapeDtypeStruct(a.shape, a.dtype, sharding=device),
        {
            "model": nnx.state(abstract_model, nnx.Param),
            "opt": nnx.state(abstract_opt),
            "key": jax.eval_shape(lambda: jax.random.key(0)),
            "step": jax.ShapeDtypeStruct((), jnp.int32),
        },
    )
    state = ocp.v1.load(Path(directory).resolve() / "ckpt", target)
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
    checkpointer = ocp.v1.training.Checkpointer(os.path.abspath(directory))
    checkpointer.save_checkpointables(
        split, {"params": nnx.state(model, nnx.Param), "optimizer": nnx.state(optimizer)}
    )
    checkpointer.close()
    return losses


def resume_run(directory, total_steps):
    model, optimizer = make_model_and_optimizer(seed=1)
    checkpointer = ocp.v1.training.Checkpointer(os.path.abspath(directory))
    step = checkpointer.latest.step
    restored = checkpointer.load_checkpointables(
        step, {"params": nnx.state(model, nnx.Param), "optimizer": nnx.state(optimizer)}
    )
    checkpointer.close()
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
    "sharding chosen by the leaf's name, loaded through load_checkpointables": {
        "task4-solution": """
def restore_sharded(make_model, directory, mesh):
    graphdef, abstract_params = nnx.split(nnx.eval_shape(make_model), nnx.Param)

    def place(path, leaf):
        name = jax.tree_util.keystr(path)
        spec = P(None, "model") if "kernel" in name else P()
        return jax.ShapeDtypeStruct(leaf.shape, leaf.dtype, sharding=NamedSharding(mesh, spec))

    target = jax.tree_util.tree_map_with_path(place, abstract_params)
    loaded = ocp.v1.load_checkpointables(str(Path(directory).absolute()), {"state": target})
    return nnx.merge(graphdef, loaded["state"])
""",
    },
}
