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
    "FSDP: the largest dimension first, then the most devices that divide it": {
        "task1-solution": """
def fsdp_specs(tree, mesh):
    data, model = mesh.shape["data"], mesh.shape["model"]
    options = sorted([(data * model, ("data", "model")), (data, "data"), (model, "model")],
                     key=lambda option: -option[0])

    def spec(leaf):
        for dim in sorted(range(len(leaf.shape)), key=lambda d: -leaf.shape[d]):
            for count, axes in options:
                if count > 1 and leaf.shape[dim] % count == 0:
                    return P(*(axes if d == dim else None for d in range(len(leaf.shape))))
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
    "Llama: weights told apart by their shapes, not their names": {
        "task2-solution": """
def llama_specs(params, mesh):
    # tell the weights apart by their shapes: d is the norm's size
    model = mesh.shape["model"]
    blocks = []
    for block in params["blocks"]:
        d = block["attn_norm"].shape[0]
        specs = {}
        for name, w in block.items():
            if w.ndim == 1:
                specs[name] = P()  # the norms
            elif w.ndim == 3 and w.shape[0] == d:  # (d, heads, head_dim): q, k, v
                specs[name] = P(None, "model", None) if w.shape[1] % model == 0 else P()
            elif w.ndim == 3:  # (heads, head_dim, d): the output projection
                specs[name] = P("model", None, None)
            elif w.shape[0] == d:  # (d, f): gate and up, column-parallel
                specs[name] = P(None, "model")
            else:  # (f, d): down, row-parallel
                specs[name] = P("model", None)
        blocks.append(specs)
    return {"blocks": blocks}
""",
    },
    "Llama: everything replicated": {
        "task2-solution": """
def llama_specs(params, mesh):
    return jax.tree.map(lambda leaf: P(), params)
""",
    },
    "Llama: the up projection split by rows": {
        "task2-solution": """
def llama_specs(params, mesh):
    m = mesh.shape["model"]
    layout = {
        "wq": P(None, "model"), "wo": P("model"),
        "w_gate": P(None, "model"), "w_up": P("model", None), "w_down": P("model", None),
    }

    def spec(path, leaf):
        name = path[-1].key
        if name in ("wk", "wv"):
            return P(None, "model") if leaf.shape[1] % m == 0 else P()
        return layout.get(name, P())

    return jax.tree_util.tree_map_with_path(spec, params)
""",
    },
    "Llama: every MLP matrix split by columns": {
        "task2-solution": """
def llama_specs(params, mesh):
    m = mesh.shape["model"]
    layout = {
        "wq": P(None, "model"), "wo": P("model"),
        "w_gate": P(None, "model"), "w_up": P(None, "model"), "w_down": P(None, "model"),
    }

    def spec(path, leaf):
        name = path[-1].key
        if name in ("wk", "wv"):
            return P(None, "model") if leaf.shape[1] % m == 0 else P()
        return layout.get(name, P())

    return jax.tree_util.tree_map_with_path(spec, params)
""",
    },
    "Llama: the key/value heads always split (GQA ignored)": {
        "task2-solution": """
def llama_specs(params, mesh):
    layout = {
        "wq": P(None, "model"), "wk": P(None, "model"), "wv": P(None, "model"),
        "wo": P("model"), "w_gate": P(None, "model"), "w_up": P(None, "model"),
        "w_down": P("model"),
    }
    return jax.tree_util.tree_map_with_path(lambda p, leaf: layout.get(p[-1].key, P()), params)
""",
    },
    "Llama: the key/value projections always replicated (safe, but no memory saved)": {
        "task2-solution": """
def llama_specs(params, mesh):
    layout = {
        "wq": P(None, "model"), "wo": P("model"),
        "w_gate": P(None, "model"), "w_up": P(None, "model"), "w_down": P("model"),
    }
    return jax.tree_util.tree_map_with_path(lambda p, leaf: layout.get(p[-1].key, P()), params)
""",
    },
    "Llama: key/value heads that do not divide split along head_dim instead": {
        "task2-solution": """
def llama_specs(params, mesh):
    m = mesh.shape["model"]
    layout = {
        "wq": P(None, "model"), "wo": P("model"),
        "w_gate": P(None, "model"), "w_up": P(None, "model"), "w_down": P("model"),
    }

    def spec(path, leaf):
        name = path[-1].key
        if name in ("wk", "wv"):
            return P(None, "model") if leaf.shape[1] % m == 0 else P(None, None, "model")
        return layout.get(name, P())

    return jax.tree_util.tree_map_with_path(spec, params)
""",
    },
    "Llama: the output projection split along head_dim": {
        "task2-solution": """
def llama_specs(params, mesh):
    m = mesh.shape["model"]
    layout = {
        "wq": P(None, "model"), "wo": P(None, "model"),
        "w_gate": P(None, "model"), "w_up": P(None, "model"), "w_down": P("model"),
    }

    def spec(path, leaf):
        name = path[-1].key
        if name in ("wk", "wv"):
            return P(None, "model") if leaf.shape[1] % m == 0 else P()
        return layout.get(name, P())

    return jax.tree_util.tree_map_with_path(spec, params)
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
    "ZeRO-3 by hand: the batch gathered too (every device does the whole batch's work)": {
        "task3-solution": """
def make_fsdp_grad(mesh):
    n = mesh.shape["data"]

    def per_device(params, x, y):
        full = {k: jax.lax.all_gather(w, "data", axis=0, tiled=True) for k, w in params.items()}
        x = jax.lax.all_gather(x, "data", axis=0, tiled=True)
        y = jax.lax.all_gather(y, "data", axis=0, tiled=True)
        grads = jax.grad(mse)(full, x, y)  # the whole batch's mean, on every device
        return {k: jax.lax.psum_scatter(g, "data", scatter_dimension=0, tiled=True) / n
                for k, g in grads.items()}

    return jax.jit(jax.shard_map(per_device, mesh=mesh, in_specs=P("data"), out_specs=P("data")))
""",
    },
    "ZeRO-3 by hand: the batch passed in replicated (in_specs P() for x and y)": {
        "task3-solution": """
def make_fsdp_grad(mesh):
    n = mesh.shape["data"]

    def per_device(params, x, y):
        full = {k: jax.lax.all_gather(w, "data", axis=0, tiled=True) for k, w in params.items()}
        grads = jax.grad(mse)(full, x, y)
        return {k: jax.lax.psum_scatter(g, "data", scatter_dimension=0, tiled=True) / n
                for k, g in grads.items()}

    return jax.jit(jax.shard_map(per_device, mesh=mesh, in_specs=(P("data"), P(), P()),
                                 out_specs=P("data")))
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
    return ocp.v1.load(path, abstract_state())
""",
    },
    "restore: SPECS as they are, not adapted to the mesh": {
        "task4-solution": """
def restore_onto(path, mesh):
    abstract = abstract_state()
    params = {name: NamedSharding(mesh, spec) for name, spec in SPECS.items()}
    opt = optax.tree.map_params(
        tx4, lambda _, s: s, abstract["opt_state"], params,
        transform_non_params=lambda _: NamedSharding(mesh, P()),
    )
    target = jax.tree.map(
        lambda a, s: jax.ShapeDtypeStruct(a.shape, a.dtype, sharding=s),
        abstract, {"params": params, "opt_state": opt},
    )
    return ocp.v1.load(path, target)
""",
    },
    "restore: a parameter whose spec does not fit is replicated whole": {
        "task4-solution": """
def restore_onto(path, mesh):
    abstract = abstract_state()

    def fits(spec, shape):
        for size, entry in zip(shape, tuple(spec) + (None,) * len(shape)):
            names = () if entry is None else (entry,) if isinstance(entry, str) else entry
            if size % math.prod(mesh.shape[n] for n in names):
                return False
        return True

    params = {
        name: NamedSharding(mesh, spec if fits(spec, abstract["params"][name].shape) else P())
        for name, spec in SPECS.items()
    }
    opt = optax.tree.map_params(
        tx4, lambda _, s: s, abstract["opt_state"], params,
        transform_non_params=lambda _: NamedSharding(mesh, P()),
    )
    target = jax.tree.map(
        lambda a, s: jax.ShapeDtypeStruct(a.shape, a.dtype, sharding=s),
        abstract, {"params": params, "opt_state": opt},
    )
    return ocp.v1.load(path, target)
""",
    },
    "restore: read replicated onto the target mesh, then device_put into the layout": {
        "task4-solution": """
def restore_onto(path, mesh):
    abstract = abstract_state()

    def fitted(spec, shape):
        entries = tuple(spec) + (None,) * (len(shape) - len(spec))
        kept = []
        for size, entry in zip(shape, entries):
            names = () if entry is None else (entry,) if isinstance(entry, str) else entry
            kept.append(entry if size % math.prod(mesh.shape[n] for n in names) == 0 else None)
        return P(*kept)

    params = {k: NamedSharding(mesh, fitted(s, abstract["params"][k].shape))
              for k, s in SPECS.items()}
    opt = optax.tree.map_params(
        tx4, lambda _, s: s, abstract["opt_state"], params,
        transform_non_params=lambda _: NamedSharding(mesh, P()),
    )
    replicated = NamedSharding(mesh, P())
    target = jax.tree.map(
        lambda a: jax.ShapeDtypeStruct(a.shape, a.dtype, sharding=replicated), abstract
    )
    state = ocp.v1.load(path, target)
    return jax.device_put(state, {"params": params, "opt_state": opt})
""",
    },
    "restore: onto one device, then device_put onto the mesh": {
        "task4-solution": """
def restore_onto(path, mesh):
    one = jax.sharding.SingleDeviceSharding(CPU_DEVICES[0])
    abstract = abstract_state()
    target = jax.tree.map(lambda a: jax.ShapeDtypeStruct(a.shape, a.dtype, sharding=one), abstract)
    with ocp.StandardCheckpointer() as checkpointer:  # the older API reads ocp.v1's folder too
        state = checkpointer.restore(Path(path) / "state", target)

    def fitted(spec, shape):
        entries = tuple(spec) + (None,) * (len(shape) - len(spec))
        return P(*(e if e is None or size % mesh.shape[e] == 0 else None
                   for size, e in zip(shape, entries)))

    params = {k: NamedSharding(mesh, fitted(s, abstract["params"][k].shape))
              for k, s in SPECS.items()}
    opt = optax.tree.map_params(
        tx4, lambda _, s: s, state["opt_state"], params,
        transform_non_params=lambda _: NamedSharding(mesh, P()),
    )
    return jax.device_put(state, {"params": params, "opt_state": opt})
""",
    },
    "restore: the parameters laid out, the optimizer state replicated": {
        "task4-solution": """
def restore_onto(path, mesh):
    abstract = abstract_state()

    def fitted(spec, shape):
        entries = tuple(spec) + (None,) * (len(shape) - len(spec))
        return P(*(e if e is None or size % mesh.shape[e] == 0 else None
                   for size, e in zip(shape, entries)))

    def target(a, spec):
        return jax.ShapeDtypeStruct(a.shape, a.dtype, sharding=NamedSharding(mesh, spec))

    params = {k: target(abstract["params"][k], fitted(SPECS[k], abstract["params"][k].shape))
              for k in SPECS}
    opt = jax.tree.map(lambda a: target(a, P()), abstract["opt_state"])
    return ocp.v1.load(path, {"params": params, "opt_state": opt})
""",
    },
    "the mesh's axes taken to come data first": {
        "task1-solution": """
def fsdp_specs(tree, mesh):
    data, model = mesh.axis_sizes  # the mesh's two axes: ('data', 'model')
    options = sorted(
        [(data * model, ("data", "model")), (data, "data"), (model, "model")],
        key=lambda option: -option[0],
    )

    def spec(leaf):
        shape = leaf.shape
        for count, axes in options:
            divisible = [d for d, size in enumerate(shape) if count > 1 and size % count == 0]
            if divisible:
                dim = max(divisible, key=lambda d: shape[d])
                return P(*(axes if d == dim else None for d in range(len(shape))))
        return P()

    return jax.tree.map(spec, tree)
""",
    },
    "key/value heads split when there are at least as many as model devices": {
        "task2-solution": """
def llama_specs(params, mesh):
    model = mesh.shape["model"]

    def spec(path, leaf):
        name = path[-1].key
        if name == "wq":
            return P(None, "model", None)
        if name in ("wk", "wv"):  # enough key/value heads to go round the 'model' devices?
            return P(None, "model", None) if leaf.shape[1] >= model else P()
        if name == "wo":
            return P("model", None, None)
        if name in ("w_gate", "w_up"):
            return P(None, "model")
        if name == "w_down":
            return P("model", None)
        return P()

    return jax.tree_util.tree_map_with_path(spec, params)
""",
    },
    "the mean over the setup's batch size, whatever batch comes in": {
        "task3-solution": """
def make_fsdp_grad(mesh):
    def per_device(params, x, y):
        full = {k: jax.lax.all_gather(w, "data", axis=0, tiled=True) for k, w in params.items()}

        def my_share(p):  # divided by the whole batch's size, B x O elements
            error = jnp.tanh(x @ p["w1"]) @ p["w2"] - y
            return jnp.sum(error**2) / (B * O)

        grads = jax.grad(my_share)(full)
        return {
            k: jax.lax.psum_scatter(g, "data", scatter_dimension=0, tiled=True)
            for k, g in grads.items()
        }

    return jax.jit(jax.shard_map(per_device, mesh=mesh, in_specs=P("data"), out_specs=P("data")))
""",
    },
    "the setup's CHECKPOINT loaded, whatever path is given": {
        "task4-solution": """
def restore_onto(path, mesh):
    abstract = abstract_state()

    def fitted(spec, shape):  # keep an entry where its axes divide the dimension
        entries = tuple(spec) + (None,) * (len(shape) - len(spec))
        kept = []
        for size, entry in zip(shape, entries, strict=True):
            names = () if entry is None else (entry,) if isinstance(entry, str) else entry
            kept.append(entry if size % math.prod(mesh.shape[n] for n in names) == 0 else None)
        return P(*kept)

    params = {
        name: NamedSharding(mesh, fitted(spec, abstract["params"][name].shape))
        for name, spec in SPECS.items()
    }
    opt_state = optax.tree.map_params(
        tx4,
        lambda _, sharding: sharding,
        abstract["opt_state"],
        params,
        transform_non_params=lambda _: NamedSharding(mesh, P()),
    )
    shardings = {"params": params, "opt_state": opt_state}
    target = jax.tree.map(
        lambda a, s: jax.ShapeDtypeStruct(a.shape, a.dtype, sharding=s), abstract, shardings
    )
    return ocp.v1.load(CHECKPOINT, target)  # the checkpoint of the setup cell
""",
    },
    "restore target of float32 everywhere: Adam's int32 step count comes back float32": {
        "task4-solution": """
def restore_onto(path, mesh):
    abstract = abstract_state()

    def fitted(spec, shape):
        entries = tuple(spec) + (None,) * (len(shape) - len(spec))
        return P(*(e if e is None or size % mesh.shape[e] == 0 else None
                   for size, e in zip(shape, entries)))

    params = {
        n: NamedSharding(mesh, fitted(s, abstract["params"][n].shape)) for n, s in SPECS.items()
    }
    opt_state = optax.tree.map_params(
        tx4, lambda _, s: s, abstract["opt_state"], params,
        transform_non_params=lambda _: NamedSharding(mesh, P()),
    )
    shardings = {"params": params, "opt_state": opt_state}
    # every array of the state is float32 (or so it seems): the step counter becomes float32 too
    target = jax.tree.map(
        lambda a, s: jax.ShapeDtypeStruct(a.shape, jnp.float32, sharding=s), abstract, shardings
    )
    return ocp.v1.load(path, target)
""",
    },
    "the size of 'data' read from the mesh's first axis": {
        "task3-solution": """
def make_fsdp_grad(mesh):
    devices = len(mesh.devices)  # the number of devices sharing the batch

    def per_device(params, x, y):
        full = {k: jax.lax.all_gather(w, "data", axis=0, tiled=True) for k, w in params.items()}

        def my_share(p):  # this device's rows, divided by the whole batch's size
            error = jnp.tanh(x @ p["w1"]) @ p["w2"] - y
            return jnp.sum(error**2) / (y.size * devices)

        grads = jax.grad(my_share)(full)
        return {
            k: jax.lax.psum_scatter(g, "data", scatter_dimension=0, tiled=True)
            for k, g in grads.items()
        }

    return jax.jit(jax.shard_map(per_device, mesh=mesh, in_specs=P("data"), out_specs=P("data")))
""",
    },
    "one axis: the largest dimension first, not the axis with more devices first": {
        "task1-solution": """
def fsdp_specs(tree, mesh):
    data, model = mesh.shape["data"], mesh.shape["model"]
    singles = sorted([(data, "data"), (model, "model")], reverse=True)  # more devices first

    def spec(leaf):
        shape = leaf.shape
        order = sorted(range(len(shape)), key=lambda d: -shape[d])  # largest dimension first

        def on(dim, axes):
            return P(*(axes if d == dim else None for d in range(len(shape))))

        # over both axes: any dimension that the product divides (the largest such)
        for dim in order:
            if data * model > 1 and shape[dim] % (data * model) == 0:
                return on(dim, ("data", "model"))
        # otherwise one axis: the largest dimension that one divides, with the bigger axis
        for dim in order:
            for count, axis in singles:
                if count > 1 and shape[dim] % count == 0:
                    return on(dim, axis)
        return P()

    return jax.tree.map(spec, tree)
""",
    },
    "the leading dimension of a 3-D array never split (a stack of layers)": {
        "task1-solution": """
def fsdp_specs(tree, mesh):
    # a leading axis of a 3-D (or higher) array is a stack of layers: it is never split,
    # only the matrix dimensions are
    data, model = mesh.shape["data"], mesh.shape["model"]
    options = sorted(
        [(data * model, ("data", "model")), (data, "data"), (model, "model")],
        key=lambda option: -option[0],
    )

    def spec(leaf):
        shape = leaf.shape
        candidates = range(1, len(shape)) if len(shape) >= 3 else range(len(shape))
        for count, axes in options:
            divisible = [d for d in candidates if count > 1 and shape[d] % count == 0]
            if divisible:
                dim = max(divisible, key=lambda d: shape[d])
                return P(*(axes if d == dim else None for d in range(len(shape))))
        return P()

    return jax.tree.map(spec, tree)
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
    "Llama: built block by block, trailing None left out, divisibility by gcd": {
        "task2-solution": """
import math as _math


def llama_specs(params, mesh):
    m = mesh.shape["model"]
    specs = {"blocks": []}
    for block in params["blocks"]:
        kv = block["wk"].shape[1]
        kv_spec = P(None, "model") if _math.gcd(kv, m) == m else P(None, None, None)
        specs["blocks"].append({
            "attn_norm": P(None),
            "wq": P(None, "model"),
            "wk": kv_spec,
            "wv": kv_spec,
            "wo": P("model"),
            "mlp_norm": P(),
            "w_gate": P(None, "model"),
            "w_up": P(None, "model"),
            "w_down": P("model"),
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
    "restore: layout by trying shard_shape, optimizer specs matched by shape, older Orbax API": {
        "task4-solution": """
def restore_onto(path, mesh):
    abstract = abstract_state()

    def adapted(spec, shape):
        entries = list(spec) + [None] * (len(shape) - len(spec))
        for d in range(len(shape)):
            trial = P(*(entries[d] if i == d else None for i in range(len(shape))))
            try:
                NamedSharding(mesh, trial).shard_shape(shape)
            except ValueError:
                entries[d] = None
        return P(*entries)

    by_shape = {abstract["params"][k].shape: adapted(s, abstract["params"][k].shape)
                for k, s in SPECS.items()}

    def target(a):
        spec = by_shape.get(a.shape, P()) if a.ndim else P()
        return jax.ShapeDtypeStruct(a.shape, a.dtype, sharding=NamedSharding(mesh, spec))

    target_tree = jax.tree.map(target, abstract)
    # Orbax's older API reads the folder where ocp.v1.save put the arrays
    with ocp.Checkpointer(ocp.StandardCheckpointHandler()) as checkpointer:
        args = ocp.args.StandardRestore(target_tree)
        return checkpointer.restore(Path(path) / "state", args=args)
""",
    },
    "the three options sorted model first, ties broken by the dimension": {
        "task1-solution": """
def fsdp_specs(tree, mesh):
    sizes = dict(mesh.shape)
    both = sizes["data"] * sizes["model"]
    # the single axis with more devices first ('data' on a tie)
    single = sorted(("data", "model"), key=lambda a: -sizes[a])
    candidates = [(both, ("model", "data"))] + [(sizes[a], a) for a in single]

    def spec(leaf):
        shape = tuple(leaf.shape)
        for count, axes in candidates:
            if count < 2:
                continue
            dims = [d for d in range(len(shape)) if shape[d] % count == 0]
            if dims:
                dim = max(dims, key=lambda d: (shape[d], -d))
                entries = [None] * len(shape)
                entries[dim] = axes
                return P(*entries)
        return P()

    return jax.tree.map(spec, tree)
""",
    },
}
