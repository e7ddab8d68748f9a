"""Wrong-but-plausible and alternative-correct answers for solutions/06_data_parallel_sharding."""

WRONG = {
    "shard shape divides by the whole device count": {
        "task1-solution": """
def shard_shape(global_shape, mesh_axes, spec):
    spec = tuple(spec)
    if len(spec) > len(global_shape):
        raise ValueError("spec too long")
    total = math.prod(mesh_axes.values())
    result = []
    for i, size in enumerate(global_shape):
        pieces = total if i < len(spec) and spec[i] is not None else 1
        if size % pieces:
            raise ValueError("indivisible")
        result.append(size // pieces)
    return tuple(result)
""",
    },
    "shard shape uses only the first axis of a tuple": {
        "task1-solution": """
def shard_shape(global_shape, mesh_axes, spec):
    spec = tuple(spec)
    if len(spec) > len(global_shape):
        raise ValueError("spec too long")
    result = []
    for i, size in enumerate(global_shape):
        entry = spec[i] if i < len(spec) else None
        if isinstance(entry, tuple):
            entry = entry[0]
        pieces = 1 if entry is None else mesh_axes[entry]
        if size % pieces:
            raise ValueError("indivisible")
        result.append(size // pieces)
    return tuple(result)
""",
    },
    "short spec aligned to the last dimensions": {
        "task1-solution": """
def shard_shape(global_shape, mesh_axes, spec):
    spec = tuple(spec)
    if len(spec) > len(global_shape):
        raise ValueError("spec too long")
    spec = (None,) * (len(global_shape) - len(spec)) + spec
    result = []
    for size, entry in zip(global_shape, spec, strict=True):
        names = () if entry is None else (entry,) if isinstance(entry, str) else entry
        pieces = math.prod(mesh_axes[n] for n in names)
        if size % pieces:
            raise ValueError("indivisible")
        result.append(size // pieces)
    return tuple(result)
""",
    },
    "indivisible dimensions rounded down instead of raising": {
        "task1-solution": """
def shard_shape(global_shape, mesh_axes, spec):
    spec = tuple(spec)
    if len(spec) > len(global_shape):
        raise ValueError("spec too long")
    spec = spec + (None,) * (len(global_shape) - len(spec))
    result = []
    for size, entry in zip(global_shape, spec, strict=True):
        names = () if entry is None else (entry,) if isinstance(entry, str) else entry
        result.append(size // math.prod(mesh_axes[n] for n in names))
    return tuple(result)
""",
    },
    "batch sharded on the feature dimension": {
        "task2-solution": """
def place_for_data_parallel(mesh, params, batch):
    params = jax.device_put(params, NamedSharding(mesh, P()))
    batch = jax.tree.map(
        lambda a: jax.device_put(a, NamedSharding(mesh, P(*([None] * (a.ndim - 1)), "data"))),
        batch,
    )
    return params, batch
""",
    },
    "batch replicated like the parameters": {
        "task2-solution": """
def place_for_data_parallel(mesh, params, batch):
    replicated = NamedSharding(mesh, P())
    return jax.device_put(params, replicated), jax.device_put(batch, replicated)
""",
    },
    "batch split over every mesh axis": {
        "task2-solution": """
def place_for_data_parallel(mesh, params, batch):
    params = jax.device_put(params, NamedSharding(mesh, P()))
    return params, jax.device_put(batch, NamedSharding(mesh, P(mesh.axis_names)))
""",
    },
    "parameters sharded over 'data' too": {
        "task2-solution": """
def place_for_data_parallel(mesh, params, batch):
    sharding = NamedSharding(mesh, P("data"))
    params = jax.tree.map(
        lambda a: jax.device_put(a, sharding if a.ndim and a.shape[0] % mesh.shape["data"] == 0
                                 else NamedSharding(mesh, P())),
        params,
    )
    return params, jax.device_put(batch, sharding)
""",
    },
    "step jitted without in_shardings": {
        "task3-solution": """
def make_data_parallel_step(step_fn, mesh):
    return jax.jit(step_fn)
""",
    },
    "step with the batch replicated": {
        "task3-solution": """
def make_data_parallel_step(step_fn, mesh):
    replicated = NamedSharding(mesh, P())
    return jax.jit(step_fn, in_shardings=(replicated, replicated), out_shardings=replicated)
""",
    },
    "step with the batch's second dimension over 'data'": {
        "task3-solution": """
def make_data_parallel_step(step_fn, mesh):
    replicated = NamedSharding(mesh, P())
    return jax.jit(
        step_fn,
        in_shardings=(replicated, NamedSharding(mesh, P(None, "data"))),
        out_shardings=replicated,
    )
""",
    },
    "step with the batch over every mesh axis": {
        "task3-solution": """
def make_data_parallel_step(step_fn, mesh):
    replicated = NamedSharding(mesh, P())
    return jax.jit(
        step_fn,
        in_shardings=(replicated, NamedSharding(mesh, P(mesh.axis_names))),
        out_shardings=replicated,
    )
""",
    },
    "every 2-D leaf treated as a kernel": {
        "task4-solution": """
def param_specs(params):
    return jax.tree.map(lambda a: P(None, "model") if a.ndim == 2 else P(), params)
""",
    },
    "kernels split on their input dimension": {
        "task4-solution": """
def param_specs(params):
    def rule(path, leaf):
        if path[-1].key == "kernel":
            return P("model", *([None] * (leaf.ndim - 1)))
        return P()

    return jax.tree_util.tree_map_with_path(rule, params)
""",
    },
    "P(None, 'model') for kernels of any rank": {
        "task4-solution": """
def param_specs(params):
    def rule(path, leaf):
        return P(None, "model") if path[-1].key == "kernel" else P()

    return jax.tree_util.tree_map_with_path(rule, params)
""",
    },
    "any name containing 'kernel'": {
        "task4-solution": """
def param_specs(params):
    def rule(path, leaf):
        if "kernel" in str(path[-1].key):
            return P(*([None] * (leaf.ndim - 1)), "model")
        return P()

    return jax.tree_util.tree_map_with_path(rule, params)
""",
    },
}

CORRECT = {
    "shard shape with explicit loops and PartitionSpec padding": {
        "task1-solution": """
def shard_shape(global_shape, mesh_axes, spec):
    entries = list(spec)
    if len(entries) > len(global_shape):
        raise ValueError("the spec is longer than the shape")
    entries += [None] * (len(global_shape) - len(entries))
    out = []
    for size, entry in zip(global_shape, entries, strict=True):
        pieces = 1
        if isinstance(entry, str):
            pieces = mesh_axes[entry]
        elif entry is not None:
            for name in entry:
                pieces *= mesh_axes[name]
        quotient, remainder = divmod(size, pieces)
        if remainder:
            raise ValueError(f"{size} is not divisible by {pieces}")
        out.append(quotient)
    return tuple(out)
""",
    },
    "placement with full-length specs, leaf by leaf": {
        "task2-solution": """
def place_for_data_parallel(mesh, params, batch):
    def shard_rows(a):
        return jax.device_put(a, NamedSharding(mesh, P("data", *([None] * (np.ndim(a) - 1)))))

    def replicate(a):
        return jax.device_put(a, NamedSharding(mesh, P(*([None] * np.ndim(a)))))

    return jax.tree.map(replicate, params), jax.tree.map(shard_rows, batch)
""",
    },
    "step with sharding pytrees built per call": {
        "task3-solution": """
def make_data_parallel_step(step_fn, mesh):
    everywhere = NamedSharding(mesh, P())

    def step(params, batch):
        batch = jax.lax.with_sharding_constraint(batch, NamedSharding(mesh, P("data")))
        return step_fn(params, batch)

    return jax.jit(
        step,
        in_shardings=(everywhere, NamedSharding(mesh, P("data"))),
        out_shardings=(everywhere, everywhere),
    )
""",
    },
    "parameter specs by recursion over dicts": {
        "task4-solution": """
def param_specs(params):
    def walk(tree):
        specs = {}
        for name, value in tree.items():
            if isinstance(value, dict):
                specs[name] = walk(value)
            elif name == "kernel":
                specs[name] = P(*((None,) * (value.ndim - 1)), "model")
            else:
                specs[name] = P()
        return specs

    return walk(params)
""",
    },
}
