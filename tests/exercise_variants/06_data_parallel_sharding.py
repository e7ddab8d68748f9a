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
