"""Wrong-but-plausible and alternative-correct answers for solutions/10_model_parallelism."""

WRONG = {
    "FSDP: everything replicated (right numbers, no memory saved)": {
        "task1-solution": """
def fsdp_specs(tree, mesh):
    return jax.tree.map(lambda leaf: P(), tree)
""",
    },
    "FSDP: the lesson's rule over 'data' only": {
        "task1-solution": """
def fsdp_specs(tree, mesh):
    size = mesh.shape["data"]

    def spec(leaf):
        divisible = [d for d, n in enumerate(leaf.shape) if n % size == 0]
        if not divisible:
            return P()
        dim = max(divisible, key=lambda d: leaf.shape[d])
        return P(*("data" if d == dim else None for d in range(len(leaf.shape))))

    return jax.tree.map(spec, tree)
""",
    },
    "FSDP: the largest dimension over both axes, divisible or not": {
        "task1-solution": """
def fsdp_specs(tree, mesh):
    def spec(leaf):
        if not leaf.shape:
            return P()
        dim = max(range(len(leaf.shape)), key=lambda d: leaf.shape[d])
        return P(*(("data", "model") if d == dim else None for d in range(len(leaf.shape))))

    return jax.tree.map(spec, tree)
""",
    },
    "FSDP: always the first dimension": {
        "task1-solution": """
def fsdp_specs(tree, mesh):
    data, model = mesh.shape["data"], mesh.shape["model"]

    def spec(leaf):
        if not leaf.shape:
            return P()
        for count, axes in ((data * model, ("data", "model")), (data, "data"), (model, "model")):
            if count > 1 and leaf.shape[0] % count == 0:
                return P(axes)
        return P()

    return jax.tree.map(spec, tree)
""",
    },
    "FSDP: 'data' before 'model' whatever their sizes": {
        "task1-solution": """
def fsdp_specs(tree, mesh):
    data, model = mesh.shape["data"], mesh.shape["model"]

    def spec(leaf):
        for count, axes in ((data * model, ("data", "model")), (data, "data"), (model, "model")):
            dims = [d for d, n in enumerate(leaf.shape) if count > 1 and n % count == 0]
            if dims:
                return P(*(axes if d == dims[0] else None for d in range(len(leaf.shape))))
        return P()

    return jax.tree.map(spec, tree)
""",
    },
    "SwiGLU: everything replicated": {
        "task2-solution": """
def swiglu_specs(params):
    return jax.tree.map(lambda leaf: P(), params)
""",
    },
    "SwiGLU: the up projection split by rows": {
        "task2-solution": """
def swiglu_specs(params):
    layout = {"w_gate": P(None, "model"), "w_up": P("model", None), "w_down": P("model", None)}
    return jax.tree_util.tree_map_with_path(
        lambda path, leaf: layout.get(path[-1].key, P()), params
    )
""",
    },
    "SwiGLU: every matrix split by columns": {
        "task2-solution": """
def swiglu_specs(params):
    layout = {"w_gate": P(None, "model"), "w_up": P(None, "model"), "w_down": P(None, "model")}
    return jax.tree_util.tree_map_with_path(
        lambda path, leaf: layout.get(path[-1].key, P()), params
    )
""",
    },
    "SwiGLU: the up projection left whole (one all-reduce, but no memory saved)": {
        "task2-solution": """
def swiglu_specs(params):
    layout = {"w_gate": P(None, "model"), "w_down": P("model", None)}
    return jax.tree_util.tree_map_with_path(
        lambda path, leaf: layout.get(path[-1].key, P()), params
    )
""",
    },
    "SwiGLU: the row-parallel layer's bias split too": {
        "task2-solution": """
def swiglu_specs(params):
    layout = {
        "w_gate": P(None, "model"), "w_up": P(None, "model"), "b_up": P("model"),
        "w_down": P("model", None), "b_down": P("model"),
    }
    return jax.tree_util.tree_map_with_path(
        lambda path, leaf: layout.get(path[-1].key, P()), params
    )
""",
    },
    "ZeRO-3 by hand: psum, then each device slices its rows (an all-reduce)": {
        "task3-solution": """
def make_fsdp_grad(mesh):
    n = mesh.shape["data"]

    def per_device(params, x, y):
        full = {k: jax.lax.all_gather(w, "data", axis=0, tiled=True) for k, w in params.items()}
        grads = jax.grad(lambda p: jnp.sum((jnp.tanh(x @ p["w1"]) @ p["w2"] - y) ** 2)
                         / (y.size * n))(full)
        i = jax.lax.axis_index("data")
        return {
            k: jax.lax.dynamic_slice_in_dim(jax.lax.psum(g, "data"), i * (g.shape[0] // n),
                                            g.shape[0] // n)
            for k, g in grads.items()
        }

    return jax.jit(jax.shard_map(per_device, mesh=mesh, in_specs=P("data"), out_specs=P("data")))
""",
    },
    "ZeRO-3 by hand: left to the compiler (jit with shardings, no shard_map)": {
        "task3-solution": """
def make_fsdp_grad(mesh):
    rows = NamedSharding(mesh, P("data"))
    return jax.jit(jax.grad(mse), in_shardings=(rows, rows, rows), out_shardings=rows)
""",
    },
    "ZeRO-3 by hand: each device's mean, summed (N times too large)": {
        "task3-solution": """
def make_fsdp_grad(mesh):
    def per_device(params, x, y):
        full = {k: jax.lax.all_gather(w, "data", axis=0, tiled=True) for k, w in params.items()}
        grads = jax.grad(mse)(full, x, y)
        return {k: jax.lax.psum_scatter(g, "data", scatter_dimension=0, tiled=True)
                for k, g in grads.items()}

    return jax.jit(jax.shard_map(per_device, mesh=mesh, in_specs=P("data"), out_specs=P("data")))
""",
    },
    "ZeRO-3 by hand: the whole gradient on every device": {
        "task3-solution": """
def make_fsdp_grad(mesh):
    n = mesh.shape["data"]

    def per_device(params, x, y):
        full = {k: jax.lax.all_gather(w, "data", axis=0, tiled=True) for k, w in params.items()}
        grads = jax.grad(lambda p: jnp.sum((jnp.tanh(x @ p["w1"]) @ p["w2"] - y) ** 2)
                         / (y.size * n))(full)
        return {k: jax.lax.psum(g, "data") for k, g in grads.items()}

    return jax.jit(jax.shard_map(per_device, mesh=mesh, in_specs=P("data"), out_specs=P()))
""",
    },
    "restore: no target (the arrays come back on the saving mesh)": {
        "task4-solution": """
def restore_onto(path, mesh):
    with ocp.StandardCheckpointer() as checkpointer:
        return checkpointer.restore(path, abstract_state())
""",
    },
    "restore: onto one device, then device_put onto the mesh": {
        "task4-solution": """
def restore_onto(path, mesh):
    one = jax.sharding.SingleDeviceSharding(CPU_DEVICES[0])
    target = jax.tree.map(
        lambda a: jax.ShapeDtypeStruct(a.shape, a.dtype, sharding=one), abstract_state()
    )
    with ocp.StandardCheckpointer() as checkpointer:
        state = checkpointer.restore(path, target)
    params = {name: NamedSharding(mesh, spec) for name, spec in SPECS.items()}
    opt = optax.tree_map_params(
        tx4, lambda _, s: s, state["opt_state"], params,
        transform_non_params=lambda _: NamedSharding(mesh, P()),
    )
    return jax.device_put(state, {"params": params, "opt_state": opt})
""",
    },
    "restore: onto the saving mesh, then resharded": {
        "task4-solution": """
def restore_onto(path, mesh):
    with ocp.StandardCheckpointer() as checkpointer:
        state = checkpointer.restore(path)
    params = {name: NamedSharding(mesh, spec) for name, spec in SPECS.items()}
    abstract = abstract_state()
    opt = optax.tree_map_params(
        tx4, lambda _, s: s, abstract["opt_state"], params,
        transform_non_params=lambda _: NamedSharding(mesh, P()),
    )
    shardings = {"params": params, "opt_state": opt}
    state = jax.tree.unflatten(jax.tree.structure(abstract), jax.tree.leaves(state))
    return jax.device_put(state, shardings)
""",
    },
    "restore: the parameters laid out, the optimizer state replicated": {
        "task4-solution": """
def restore_onto(path, mesh):
    abstract = abstract_state()

    def target(a, spec):
        return jax.ShapeDtypeStruct(a.shape, a.dtype, sharding=NamedSharding(mesh, spec))

    params = {k: target(abstract["params"][k], SPECS[k]) for k in SPECS}
    opt = jax.tree.map(lambda a: target(a, P()), abstract["opt_state"])
    with ocp.StandardCheckpointer() as checkpointer:
        return checkpointer.restore(path, {"params": params, "opt_state": opt})
""",
    },
}

CORRECT = {
    "FSDP: options tried in order of size, splitting two dimensions where that spreads further": {
        "task1-solution": """
def fsdp_specs(tree, mesh):
    sizes = dict(mesh.shape)

    def best_single(shape):
        choices = [(sizes["data"] * sizes["model"], ("data", "model")),
                   (sizes["data"], "data"), (sizes["model"], "model")]
        choices.sort(key=lambda c: c[0], reverse=True)
        for count, axes in choices:
            for d in sorted(range(len(shape)), key=lambda d: -shape[d]):
                if count > 1 and shape[d] % count == 0:
                    return count, d, axes
        return 1, None, None

    def spec(leaf):
        shape = tuple(leaf.shape)
        count, dim, axes = best_single(shape)
        entries = [None] * len(shape)
        if dim is not None:
            entries[dim] = axes
        # an extra split of another dimension over the axis still free, if it divides
        if axes in ("data", "model"):
            other = "model" if axes == "data" else "data"
            for d in range(len(shape)):
                if d != dim and sizes[other] > 1 and shape[d] % sizes[other] == 0:
                    entries[d] = other
                    break
        return P(*entries)

    return jax.tree.map(spec, tree)
""",
    },
    "SwiGLU: built block by block, the up bias left replicated": {
        "task2-solution": """
def swiglu_specs(params):
    specs = {"blocks": []}
    for block in params["blocks"]:
        specs["blocks"].append({
            "norm": P(),
            "w_gate": P(None, "model"),
            "w_up": P(None, "model"),
            "b_up": P(),
            "w_down": P("model"),
            "b_down": P(None),
        })
    return specs
""",
    },
    "ZeRO-3 by hand: autodiff through all_gather (its transpose is the reduce-scatter)": {
        "task3-solution": """
def make_fsdp_grad(mesh):
    n = mesh.shape["data"]

    def per_device(shards, x, y):
        def loss(shards):
            w1 = jax.lax.all_gather(shards["w1"], "data", axis=0, tiled=True)
            w2 = jax.lax.all_gather(shards["w2"], "data", axis=0, tiled=True)
            return jnp.sum((jnp.tanh(x @ w1) @ w2 - y) ** 2) / (y.size * n)

        return jax.grad(loss)(shards)

    return jax.jit(jax.shard_map(per_device, mesh=mesh, in_specs=P("data"), out_specs=P("data")))
""",
    },
    "restore: Checkpointer with StandardRestore, optimizer specs matched by shape": {
        "task4-solution": """
def restore_onto(path, mesh):
    abstract = abstract_state()
    by_shape = {abstract["params"][k].shape: s for k, s in SPECS.items()}

    def target(a):
        spec = by_shape.get(a.shape, P()) if a.ndim else P()
        return jax.ShapeDtypeStruct(a.shape, a.dtype, sharding=NamedSharding(mesh, spec))

    with ocp.Checkpointer(ocp.StandardCheckpointHandler()) as checkpointer:
        target_tree = jax.tree.map(target, abstract)
        return checkpointer.restore(path, args=ocp.args.StandardRestore(target_tree))
""",
    },
}
