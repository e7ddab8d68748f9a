"""Wrong-but-plausible and alternative-correct answers for solutions/09_aot_export."""

_T3_MATMUL_AND_FORMULA = """

def matmul_flops(m, k, n):
    a = jax.ShapeDtypeStruct((m, k), jnp.float32)
    b = jax.ShapeDtypeStruct((k, n), jnp.float32)
    return flops_of(jax.jit(jnp.matmul).lower(a, b).compile())


def matmul_flops_formula(m, k, n):
    return 2 * m * k * n
"""

_T3_FLOPS_OF = """
def flops_of(compiled):
    cost = compiled.cost_analysis()
    if isinstance(cost, dict):
        cost = [cost]
    return float(sum(entry["flops"] for entry in cost))
"""

WRONG = {
    "compiles lazily on the first request": {
        "task1-solution": """
class BucketServer:
    def __init__(self, fn, params, batch_sizes, feature_dim):
        self.fn, self.params, self.sizes = jax.jit(fn), params, sorted(batch_sizes)

    def handle(self, x):
        n = x.shape[0]
        fitting = [b for b in self.sizes if b >= n]
        if not fitting:
            raise ValueError(n)
        padded = jnp.pad(jnp.asarray(x, jnp.float32), ((0, min(fitting) - n), (0, 0)))
        return self.fn(self.params, padded)[:n]
""",
    },
    "compiled programs called without padding": {
        "task1-solution": """
class BucketServer:
    def __init__(self, fn, params, batch_sizes, feature_dim):
        self.params = params
        self.programs = {
            b: jax.jit(fn).lower(params, jax.ShapeDtypeStruct((b, d), jnp.float32)).compile()
            for b, d in zip(batch_sizes, [feature_dim] * len(batch_sizes), strict=True)
        }

    def handle(self, x):
        n = x.shape[0]
        fitting = [b for b in self.programs if b >= n]
        if not fitting:
            raise ValueError(n)
        return self.programs[min(fitting)](self.params, x)
""",
    },
    "always pads to the largest batch size": {
        "task1-solution": """
class BucketServer:
    def __init__(self, fn, params, batch_sizes, feature_dim):
        self.params = params
        self.programs = {
            b: jax.jit(fn).lower(params, jax.ShapeDtypeStruct((b, d), jnp.float32)).compile()
            for b, d in zip(batch_sizes, [feature_dim] * len(batch_sizes), strict=True)
        }

    def handle(self, x):
        n = x.shape[0]
        b = max(self.programs)
        if n > b:
            raise ValueError(n)
        padded = jnp.pad(jnp.asarray(x, jnp.float32), ((0, b - n), (0, 0)))
        return self.programs[b](self.params, padded)[:n]
""",
    },
    "only the largest size compiled at start-up": {
        "task1-solution": """
class BucketServer:
    def __init__(self, fn, params, batch_sizes, feature_dim):
        self.params, self.size = params, max(batch_sizes)
        spec = jax.ShapeDtypeStruct((self.size, feature_dim), jnp.float32)
        self.program = jax.jit(fn).lower(params, spec).compile()

    def handle(self, x):
        n = x.shape[0]
        if n > self.size:
            raise ValueError(n)
        padded = jnp.pad(jnp.asarray(x, jnp.float32), ((0, self.size - n), (0, 0)))
        return self.program(self.params, padded)[:n]
""",
    },
    "exported with a fixed batch size": {
        "task2-solution": """
def export_for_serving(fn, params, feature_dim):
    spec = jax.ShapeDtypeStruct((1, feature_dim), jnp.float32)
    exported = export.export(jax.jit(lambda x: fn(params, x)), platforms=["cpu", "cuda"])(spec)
    return exported.serialize()
""",
    },
    "exported only for the local platform": {
        "task2-solution": """
def export_for_serving(fn, params, feature_dim):
    spec = jax.ShapeDtypeStruct(export.symbolic_shape(f"b, {feature_dim}"), jnp.float32)
    return export.export(jax.jit(lambda x: fn(params, x)))(spec).serialize()
""",
    },
    "parameters left as an input of the artifact": {
        "task2-solution": """
def export_for_serving(fn, params, feature_dim):
    spec = jax.ShapeDtypeStruct(export.symbolic_shape(f"b, {feature_dim}"), jnp.float32)
    param_specs = jax.tree.map(lambda a: jax.ShapeDtypeStruct(a.shape, a.dtype), params)
    exported = export.export(jax.jit(fn), platforms=["cpu", "cuda"])(param_specs, spec)
    return exported.serialize()
""",
    },
    "Exported object returned instead of bytes": {
        "task2-solution": """
def export_for_serving(fn, params, feature_dim):
    spec = jax.ShapeDtypeStruct(export.symbolic_shape(f"b, {feature_dim}"), jnp.float32)
    return export.export(jax.jit(lambda x: fn(params, x)), platforms=["cpu", "cuda"])(spec)
""",
    },
    "feature dimension made symbolic too": {
        "task2-solution": """
def export_for_serving(fn, params, feature_dim):
    spec = jax.ShapeDtypeStruct(export.symbolic_shape("b, f"), jnp.float32)
    exported = export.export(jax.jit(lambda x: fn(params, x)), platforms=["cpu", "cuda"])(spec)
    return exported.serialize()
""",
    },
    "formula m*k*n (multiply-adds, not FLOPs)": {
        "task3-solution": _T3_FLOPS_OF
        + """

def matmul_flops(m, k, n):
    a = jax.ShapeDtypeStruct((m, k), jnp.float32)
    b = jax.ShapeDtypeStruct((k, n), jnp.float32)
    return flops_of(jax.jit(jnp.matmul).lower(a, b).compile())


def matmul_flops_formula(m, k, n):
    return m * k * n
""",
    },
    "cost_analysis assumed to be a dict": {
        "task3-solution": """
def flops_of(compiled):
    return float(compiled.cost_analysis()["flops"])
"""
        + _T3_MATMUL_AND_FORMULA,
    },
    "only the first dict of a list counted": {
        "task3-solution": """
def flops_of(compiled):
    cost = compiled.cost_analysis()
    if isinstance(cost, list):
        cost = cost[0]
    return float(cost["flops"])
"""
        + _T3_MATMUL_AND_FORMULA,
    },
    "real arrays created to lower the matmul": {
        "task3-solution": _T3_FLOPS_OF
        + """

def matmul_flops(m, k, n):
    a, b = jnp.ones((m, k), jnp.float32), jnp.ones((k, n), jnp.float32)
    return flops_of(jax.jit(jnp.matmul).lower(a, b).compile())


def matmul_flops_formula(m, k, n):
    return 2 * m * k * n
""",
    },
}

CORRECT = {
    "jit warmed up at start-up, numpy padding, bisect": {
        "task1-solution": """
import bisect


class BucketServer:
    def __init__(self, fn, params, batch_sizes, feature_dim):
        self.fn, self.params = jax.jit(fn), params
        self.sizes = sorted(batch_sizes)
        for b in self.sizes:  # warm-up: trace and compile every size now
            self.fn(params, np.zeros((b, feature_dim), np.float32)).block_until_ready()

    def handle(self, x):
        x = np.asarray(x, np.float32)
        n = len(x)
        i = bisect.bisect_left(self.sizes, n)
        if i == len(self.sizes):
            raise ValueError(f"{n} rows do not fit")
        padded = np.zeros((self.sizes[i], x.shape[1]), np.float32)
        padded[:n] = x
        return np.asarray(self.fn(self.params, padded))[:n]
""",
    },
    "symbolic shape with like=, platforms as a tuple, bytes()": {
        "task2-solution": """
def export_for_serving(fn, params, feature_dim):
    shape = export.symbolic_shape("batch, ...", like=(None, feature_dim))

    def serve(x):
        return fn(params, x)

    exp = export.export(jax.jit(serve), platforms=("cuda", "cpu"))(
        jax.ShapeDtypeStruct(shape, np.float32)
    )
    return bytes(exp.serialize())
""",
    },
    "dict.get, jnp.dot and a float formula": {
        "task3-solution": """
def flops_of(compiled):
    cost = compiled.cost_analysis()
    entries = cost if isinstance(cost, (list, tuple)) else [cost]
    total = 0.0
    for entry in entries:
        total += entry.get("flops", 0.0)
    return total


def matmul_flops(m, k, n):
    lowered = jax.jit(lambda a, b: jnp.dot(a, b)).lower(
        jax.ShapeDtypeStruct((m, k), np.float32), jax.ShapeDtypeStruct((k, n), np.float32)
    )
    return flops_of(lowered.compile())


def matmul_flops_formula(m, k, n):
    return 2.0 * m * n * k
""",
    },
}
