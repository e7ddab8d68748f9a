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
    "every line that mentions all-reduce counted (get-tuple-element too)": {
        "task2-solution": """
import re


def all_reduce_bytes(compiled):
    total = 0
    for line in compiled.as_text().splitlines():
        if "all-reduce" in line and " = " in line:
            result = re.split(r"\\s[a-z-]+\\(", line.split(" = ", 1)[1])[0]
            for dtype, dims in re.findall(r"(\\w+)\\[([\\d,]*)\\]", result):
                total += HLO_BYTES[dtype] * math.prod(int(d) for d in dims.split(",") if d)
    return total
""",
    },
    "four bytes per element whatever the type": {
        "task2-solution": """
import re


def all_reduce_bytes(compiled):
    total = 0
    for line in compiled.as_text().splitlines():
        match = re.search(r"=\\s*(.*?)\\s+all-reduce(-start)?\\(", line)
        if match:
            for _, dims in re.findall(r"(\\w+)\\[([\\d,]*)\\]", match.group(1)):
                total += 4 * math.prod(int(d) for d in dims.split(",") if d)
    return total
""",
    },
    "only the first shape of a tuple": {
        "task2-solution": """
import re


def all_reduce_bytes(compiled):
    total = 0
    for line in compiled.as_text().splitlines():
        match = re.search(r"=\\s*(.*?)\\s+all-reduce(-start)?\\(", line)
        if match:
            dtype, dims = re.search(r"(\\w+)\\[([\\d,]*)\\]", match.group(1)).groups()
            total += HLO_BYTES[dtype] * math.prod(int(d) for d in dims.split(",") if d)
    return total
""",
    },
    "every shape on the line, operands included": {
        "task2-solution": """
import re


def all_reduce_bytes(compiled):
    total = 0
    for line in compiled.as_text().splitlines():
        if re.search(r"\\sall-reduce(-start)?\\(", line):
            for dtype, dims in re.findall(r"(\\w+)\\[([\\d,]*)\\]", line):
                total += HLO_BYTES[dtype] * math.prod(int(d) for d in dims.split(",") if d)
    return total
""",
    },
    "an async start and done counted twice": {
        "task2-solution": """
import re


def all_reduce_bytes(compiled):
    total = 0
    for line in compiled.as_text().splitlines():
        match = re.search(r"=\\s*(.*?)\\s+all-reduce(-start|-done)?\\(", line)
        if match:
            for dtype, dims in re.findall(r"(\\w+)\\[([\\d,]*)\\]", match.group(1)):
                total += HLO_BYTES[dtype] * math.prod(int(d) for d in dims.split(",") if d)
    return total
""",
    },
    "every collective counted, all-gathers too": {
        "task2-solution": """
import re


def all_reduce_bytes(compiled):
    total = 0
    for line in compiled.as_text().splitlines():
        match = re.search(r"=\\s*(.*?)\\s+(all-reduce|all-gather|reduce-scatter)(-start)?\\(", line)
        if match:
            for dtype, dims in re.findall(r"(\\w+)\\[([\\d,]*)\\]", match.group(1)):
                total += HLO_BYTES[dtype] * math.prod(int(d) for d in dims.split(",") if d)
    return total
""",
    },
    "jitted with shardings but no constraint: every device draws the whole batch": {
        "task3-solution": """
def make_sharded_eval(mesh, batch_size):
    replicated = NamedSharding(mesh, P())

    def evaluate(params, key):
        return eval_loss(params, synthetic_batch(key, batch_size))

    return jax.jit(evaluate, in_shardings=(replicated, replicated), out_shardings=replicated)
""",
    },
    "jax.device_put inside the jitted function": {
        "task3-solution": """
def make_sharded_eval(mesh, batch_size):
    replicated = NamedSharding(mesh, P())

    def evaluate(params, key):
        batch = jax.device_put(synthetic_batch(key, batch_size), NamedSharding(mesh, P("data")))
        return eval_loss(params, batch)

    return jax.jit(evaluate, in_shardings=(replicated, replicated), out_shardings=replicated)
""",
    },
    "the feature dimension split instead of the batch": {
        "task3-solution": """
def make_sharded_eval(mesh, batch_size):
    replicated = NamedSharding(mesh, P())

    def evaluate(params, key):
        x, y = synthetic_batch(key, batch_size)
        x = jax.lax.with_sharding_constraint(x, NamedSharding(mesh, P(None, "data")))
        return eval_loss(params, (x, y))

    return jax.jit(evaluate, in_shardings=(replicated, replicated), out_shardings=replicated)
""",
    },
    "the batch split over every mesh axis": {
        "task3-solution": """
def make_sharded_eval(mesh, batch_size):
    replicated = NamedSharding(mesh, P())

    def evaluate(params, key):
        batch = synthetic_batch(key, batch_size)
        batch = jax.lax.with_sharding_constraint(batch, NamedSharding(mesh, P(mesh.axis_names)))
        return eval_loss(params, batch)

    return jax.jit(evaluate, in_shardings=(replicated, replicated), out_shardings=replicated)
""",
    },
    "batch drawn eagerly and placed, loss jitted": {
        "task3-solution": """
def make_sharded_eval(mesh, batch_size):
    rows = NamedSharding(mesh, P("data"))
    loss = jax.jit(eval_loss)

    def evaluate(params, key):
        batch = jax.device_put(synthetic_batch(key, batch_size), rows)
        return loss(jax.device_put(params, NamedSharding(mesh, P())), batch)

    return evaluate
""",
    },
    "the remainder rows dropped instead of padded": {
        "task4-solution": """
def shard_batch(batch, mesh):
    d = mesh.shape["data"]
    n = len(next(iter(batch.values())))
    keep = n // d * d
    rows = NamedSharding(mesh, P("data"))
    sharded = jax.device_put({k: v[:keep] for k, v in batch.items()}, rows)
    return sharded, jax.device_put(np.ones(keep, np.float32), rows)
""",
    },
    "padded with copies of the last row, all weights 1": {
        "task4-solution": """
def shard_batch(batch, mesh):
    d = mesh.shape["data"]
    n = len(next(iter(batch.values())))
    m = -(-n // d) * d
    rows = NamedSharding(mesh, P("data"))
    padded = {k: np.concatenate([v, np.repeat(v[-1:], m - n, axis=0)]) for k, v in batch.items()}
    return jax.device_put(padded, rows), jax.device_put(np.ones(m, np.float32), rows)
""",
    },
    "weights replicated instead of split over 'data'": {
        "task4-solution": """
def shard_batch(batch, mesh):
    d = mesh.shape["data"]
    n = len(next(iter(batch.values())))
    m = -(-n // d) * d
    padded = {
        k: np.concatenate([v, np.zeros((m - n, *v.shape[1:]), v.dtype)]) for k, v in batch.items()
    }
    weights = (np.arange(m) < n).astype(np.float32)
    sharded = jax.device_put(padded, NamedSharding(mesh, P("data")))
    return sharded, jax.device_put(weights, NamedSharding(mesh, P()))
""",
    },
    "rows split over every mesh axis, padded to the device count": {
        "task4-solution": """
def shard_batch(batch, mesh):
    d = mesh.size
    n = len(next(iter(batch.values())))
    m = -(-n // d) * d
    rows = NamedSharding(mesh, P(mesh.axis_names))
    padded = {
        k: np.concatenate([v, np.zeros((m - n, *v.shape[1:]), v.dtype)]) for k, v in batch.items()
    }
    weights = (np.arange(m) < n).astype(np.float32)
    return jax.device_put(padded, rows), jax.device_put(weights, rows)
""",
    },
    "padded to a multiple of all the devices, not of the 'data' axis": {
        "task4-solution": """
def shard_batch(batch, mesh):
    d = len(mesh.devices.flat)
    n = len(next(iter(batch.values())))
    m = -(-n // d) * d
    rows = NamedSharding(mesh, P("data"))
    padded = {
        k: np.concatenate([v, np.zeros((m - n, *v.shape[1:]), v.dtype)]) for k, v in batch.items()
    }
    weights = (np.arange(m) < n).astype(np.float32)
    return jax.device_put(padded, rows), jax.device_put(weights, rows)
""",
    },
    "a whole extra block of padding when n is already a multiple": {
        "task4-solution": """
def shard_batch(batch, mesh):
    d = mesh.shape["data"]
    n = len(next(iter(batch.values())))
    m = n + d - n % d
    rows = NamedSharding(mesh, P("data"))
    padded = {
        k: np.concatenate([v, np.zeros((m - n, *v.shape[1:]), v.dtype)]) for k, v in batch.items()
    }
    weights = (np.arange(m) < n).astype(np.float32)
    return jax.device_put(padded, rows), jax.device_put(weights, rows)
""",
    },
    "a boolean mask for weights, as in lesson 03": {
        "task4-solution": """
def shard_batch(batch, mesh):
    d = mesh.shape["data"]
    n = len(next(iter(batch.values())))
    m = -(-n // d) * d
    rows = NamedSharding(mesh, P("data"))
    padded = {
        k: np.concatenate([v, np.zeros((m - n, *v.shape[1:]), v.dtype)]) for k, v in batch.items()
    }
    mask = np.arange(m) < n
    return jax.device_put(padded, rows), jax.device_put(mask, rows)
""",
    },
    "the mesh's first axis taken for 'data'": {
        "task4-solution": """
def shard_batch(batch, mesh):
    d = mesh.devices.shape[0]
    n = len(next(iter(batch.values())))
    m = -(-n // d) * d
    rows = NamedSharding(mesh, P("data"))
    padded = {
        k: np.concatenate([v, np.zeros((m - n, *v.shape[1:]), v.dtype)]) for k, v in batch.items()
    }
    weights = (np.arange(m) < n).astype(np.float32)
    return jax.device_put(padded, rows), jax.device_put(weights, rows)
""",
    },
    "divisibility checked axis by axis, not by the product": {
        "task1-solution": """
def shard_shape(global_shape, mesh_axes, spec):
    spec = tuple(spec)
    if len(spec) > len(global_shape):
        raise ValueError("spec longer than the shape")
    spec = spec + (None,) * (len(global_shape) - len(spec))
    result = []
    for size, entry in zip(global_shape, spec, strict=True):
        names = (entry,) if isinstance(entry, str) else tuple(entry or ())
        if any(size % mesh_axes[name] for name in names):
            raise ValueError(f"{size} does not divide")
        result.append(size // math.prod(mesh_axes[name] for name in names))
    return tuple(result)
""",
    },
    "only instructions whose line starts with % (the ROOT line is missed)": {
        "task2-solution": """
import re


def all_reduce_bytes(compiled):
    total = 0
    for line in compiled.as_text().splitlines():
        match = re.match(r"\\s*%[\\w.\\-]+ = (.*?) all-reduce(?:-start)?\\(", line)
        if match:
            for dtype, dims in re.findall(r"(\\w+)\\[([\\d,]*)\\]", match.group(1)):
                total += math.prod(int(d) for d in dims.split(",") if d) * HLO_BYTES[dtype]
    return total
""",
    },
    "a wrapper whose compiled cost_analysis divides the FLOPs (games the tests)": {
        "task3-solution": """
def make_sharded_eval(mesh, batch_size):
    replicated = NamedSharding(mesh, P())
    real = jax.jit(
        lambda params, key: eval_loss(params, synthetic_batch(key, batch_size)),
        in_shardings=(replicated, replicated),
        out_shardings=replicated,
    )
    pieces = mesh.shape["data"]

    class _Compiled:
        def __init__(self, inner):
            self._inner = inner

        def cost_analysis(self):
            cost = dict(self._inner.cost_analysis())
            return {**cost, "flops": cost["flops"] / pieces}

        def __getattr__(self, name):
            return getattr(self._inner, name)

    class _Lowered:
        def __init__(self, inner):
            self._inner = inner

        def compile(self, *args, **kwargs):
            return _Compiled(self._inner.compile(*args, **kwargs))

    class _Evaluate:
        def __call__(self, *args):
            return real(*args)

        def lower(self, *args, **kwargs):
            return _Lowered(real.lower(*args, **kwargs))

    return _Evaluate()
""",
    },
    "all-reduces told apart by their result's shape text": {
        "task2-solution": r"""
def all_reduce_bytes(compiled):
    import re

    total = 0
    counted = set()  # count each all-reduce once (a start/done pair, or the same one seen twice)
    for line in compiled.as_text().splitlines():
        match = re.search(r"=\s*(.*?)\s+all-reduce(?:-start)?\(", line)
        if match is None:
            continue
        result = match.group(1)
        if result in counted:
            continue
        counted.add(result)
        for dtype, dims in re.findall(r"(\w+)\[([\d,]*)\]", result):
            total += HLO_BYTES[dtype] * math.prod(int(d) for d in dims.split(",") if d)
    return total
""",
    },
    "true division: floats such as (8.0, 4.0)": {
        "task1-solution": """
def shard_shape(global_shape, mesh_axes, spec):
    spec = tuple(spec)
    if len(spec) > len(global_shape):
        raise ValueError(f"spec {spec} has more entries than shape {global_shape}")
    spec = spec + (None,) * (len(global_shape) - len(spec))
    result = []
    for size, entry in zip(global_shape, spec):
        if entry is None:
            names = ()
        elif isinstance(entry, str):
            names = (entry,)
        else:
            names = tuple(entry)
        pieces = math.prod(mesh_axes[name] for name in names)
        if size % pieces:
            raise ValueError(f"dimension of size {size} cannot be split into {pieces} pieces")
        result.append(size / pieces)  # divisible, checked above
    return tuple(result)
""",
    },
    "the result tuple split on ', ', the /*index=5*/ shape skipped": {
        "task2-solution": r"""
def all_reduce_bytes(compiled):
    import re

    shape_re = re.compile(r"(\w+)\[([\d,]*)\](?:\{[^}]*\})?")  # e.g. f32[32,16]{1,0}
    total = 0
    for line in compiled.as_text().splitlines():
        _, eq, rhs = line.partition(" = ")
        if not eq:
            continue
        m = re.match(r"(\(.*\)|\S+) all-reduce(-start)?\(", rhs)
        if m is None:
            continue
        for part in m.group(1).strip("()").split(", "):
            shape = shape_re.fullmatch(part.strip())
            if shape is None:  # not an array shape (a token, say): carries no bytes
                continue
            dtype, dims = shape.groups()
            total += HLO_BYTES[dtype] * math.prod(int(d) for d in dims.split(",") if d)
    return total
""",
    },
    "the row count read from batch['label']: other names fail": {
        "task4-solution": """
def shard_batch(batch, mesh):
    d = mesh.shape["data"]
    n = batch["label"].shape[0]  # one example per label
    m = -(-n // d) * d
    rows = NamedSharding(mesh, P("data"))
    sharded = {}
    for name, array in batch.items():
        padded = np.zeros((m, *array.shape[1:]), array.dtype)
        padded[:n] = array
        sharded[name] = jax.device_put(padded, rows)
    weights = (np.arange(m) < n).astype(np.float32)
    return sharded, jax.device_put(weights, rows)
""",
    },
    "task 1: an entry for None written into the caller's mesh_axes": {
        "task1-solution": """
def shard_shape(global_shape, mesh_axes, spec):
    sizes = mesh_axes
    sizes[None] = 1  # an unsplit dimension: one piece (written into the caller's dict)
    spec = tuple(spec)
    if len(spec) > len(global_shape):
        raise ValueError("spec longer than shape")
    spec += (None,) * (len(global_shape) - len(spec))
    out = []
    for size, entry in zip(global_shape, spec):
        names = entry if isinstance(entry, tuple) else (entry,)
        pieces = math.prod(sizes[n] for n in names)
        if size % pieces:
            raise ValueError(f"{size} not divisible by {pieces}")
        out.append(size // pieces)
    return tuple(out)
""",
    },
    "task 4: padding rows left as np.empty found them": {
        "task4-solution": """
def shard_batch(batch, mesh):
    d = mesh.shape["data"]
    n = len(next(iter(batch.values())))
    m = -(-n // d) * d
    rows = NamedSharding(mesh, P("data"))
    out = {}
    for name, array in batch.items():
        padded = np.empty((m, *array.shape[1:]), array.dtype)  # padding left uninitialised
        padded[:n] = array
        out[name] = jax.device_put(padded, rows)
    weights = np.zeros(m, np.float32)
    weights[:n] = 1.0
    return out, jax.device_put(weights, rows)
""",
    },
    "task 4: padding rows of ones, neither zeros nor copies of real rows": {
        "task4-solution": """
def shard_batch(batch, mesh):
    d = mesh.shape["data"]
    n = len(next(iter(batch.values())))
    m = -(-n // d) * d
    rows = NamedSharding(mesh, P("data"))
    out = {}
    for name, array in batch.items():
        padded = np.ones((m, *array.shape[1:]), array.dtype)  # padding: ones (label 1 is a class)
        padded[:n] = array
        out[name] = jax.device_put(padded, rows)
    weights = np.zeros(m, np.float32)
    weights[:n] = 1.0
    return out, jax.device_put(weights, rows)
""",
    },
    "task 3: evaluate reads the setup's eval_params, not its params argument": {
        "task3-solution": """
def make_sharded_eval(mesh, batch_size):
    replicated = NamedSharding(mesh, P())
    rows = NamedSharding(mesh, P("data"))

    def evaluate(params, key):
        batch = synthetic_batch(key, batch_size)
        batch = jax.lax.with_sharding_constraint(batch, rows)
        return eval_loss(eval_params, batch)  # slip: the setup's parameters, not the argument

    return jax.jit(evaluate, in_shardings=(replicated, replicated), out_shardings=replicated)
""",
    },
    "task 2: the total as a float (sizes multiplied with np.prod of floats)": {
        "task2-solution": r"""
def all_reduce_bytes(compiled):
    import re

    total = 0
    for line in compiled.as_text().splitlines():
        match = re.search(r"=\s*(.*?)\s+all-reduce(-start)?\(", line)
        if match is None:
            continue
        for dtype, dims in re.findall(r"(\w+)\[([\d,]*)\]", match.group(1)):
            shape = [int(d) for d in dims.split(",") if d]
            total += HLO_BYTES[dtype] * np.prod(shape)  # np.prod([]) is 1.0: a float
    return total
""",
    },
    "task 2: a layout's numbers taken for dimensions, half of them kept when braces follow": {
        # a held-out answer (round 32): right for {1,0} and the tiled 2-D case, wrong for a 3-D
        # tiled shape or a column-major one
        "task2-solution": r"""import re


def all_reduce_bytes(compiled):
    total = 0
    for line in compiled.as_text().splitlines():
        m = re.search(r"=\s*(.*?)\s+all-reduce(-start)?\(", line)
        if not m:
            continue
        for shape in re.findall(r"[a-z]+\d*\[[^\]]*\](?:\{[^}]*\})?", m.group(1)):
            elem = shape.split("[")[0]
            # the numbers of a shape: f32[32,16]{1,0} -> 32, 16 (skip the trailing layout)
            nums = [int(x) for x in re.findall(r"\d+", shape[len(elem):])]
            ndim = len(nums) // 2 if "{" in shape else len(nums)
            total += math.prod(nums[:ndim]) * HLO_BYTES[elem]
    return total
""",
    },
    "task 3: no in_shardings, the constraint inside only": {
        # a held-out answer (round 32): host NumPy params are replicated by the compiler anyway;
        # params committed to one device are not placed on the mesh
        "task3-solution": """def make_sharded_eval(mesh, batch_size):
    rows = NamedSharding(mesh, P("data"))

    @jax.jit
    def evaluate(params, key):
        batch = jax.lax.with_sharding_constraint(synthetic_batch(key, batch_size), rows)
        return eval_loss(params, batch)

    return evaluate
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
    "all-reduce bytes by scanning for brackets": {
        "task2-solution": """
import re


def all_reduce_bytes(compiled):
    total = 0
    for line in compiled.as_text().splitlines():
        _, found, rhs = line.partition(" = ")
        if not found:
            continue
        for opcode in (" all-reduce(", " all-reduce-start("):
            if opcode not in rhs:
                continue
            result = rhs.split(opcode)[0]
            i = result.find("[")
            while i != -1:
                j = i
                while j > 0 and result[j - 1].isalnum():
                    j -= 1
                k = result.index("]", i)
                count = 1
                for d in result[i + 1 : k].split(","):
                    if d:
                        count *= int(d)
                total += HLO_BYTES[result[j:i]] * count
                i = result.find("[", k)
    return total
""",
    },
    "constraints on x and y separately, default output sharding": {
        "task3-solution": """
def make_sharded_eval(mesh, batch_size):
    everywhere = NamedSharding(mesh, P())
    split_rows = NamedSharding(mesh, P("data", None))

    def evaluate(params, key):
        x, y = synthetic_batch(key, batch_size)
        x = jax.lax.with_sharding_constraint(x, split_rows)
        y = jax.lax.with_sharding_constraint(y, split_rows)
        return eval_loss(params, (x, y))

    return jax.jit(evaluate, in_shardings=(everywhere, everywhere))
""",
    },
    "tree.map, make_array_from_callback, edge padding with weight 0, jnp weights": {
        "task4-solution": """
def shard_batch(batch, mesh):
    n = jax.tree.leaves(batch)[0].shape[0]
    m = math.ceil(n / mesh.shape["data"]) * mesh.shape["data"]

    def place(host):  # edge padding: copies of the last row, whose weight is 0
        host = np.pad(np.asarray(host), [(0, m - n)] + [(0, 0)] * (host.ndim - 1), mode="edge")
        sharding = NamedSharding(mesh, P("data", *[None] * (host.ndim - 1)))
        return jax.make_array_from_callback(host.shape, sharding, lambda index: host[index])

    weights = jnp.where(jnp.arange(m) < n, 1.0, 0.0).astype(jnp.float32)
    return jax.tree.map(place, batch), jax.device_put(weights, NamedSharding(mesh, P("data")))
""",
    },
    "task 4: np.pad with the edge row, make_array_from_process_local_data": {
        "task4-solution": """
def shard_batch(batch, mesh):
    d = dict(mesh.shape)["data"]
    n = {len(v) for v in batch.values()}.pop()
    m = d * math.ceil(n / d)
    rows = NamedSharding(mesh, P("data"))

    def place(a):
        a = np.pad(a, [(0, m - n)] + [(0, 0)] * (a.ndim - 1), mode="edge")  # copies of the last row
        return jax.make_array_from_process_local_data(rows, a)

    weights = (np.arange(m) < n).astype(np.float32)
    placed_weights = jax.make_array_from_process_local_data(rows, weights)
    return {k: place(v) for k, v in batch.items()}, placed_weights
""",
    },
}
