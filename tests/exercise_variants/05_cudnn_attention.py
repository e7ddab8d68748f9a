"""Wrong-but-plausible and alternative-correct answers for solutions/05_cudnn_attention."""

WRONG = {
    "library through an aliased import: the cap is never applied": {
        "task1-solution": """
from jax.nn import dot_product_attention as dpa


def softcap_attention(q, k, v, cap, is_causal=False):
    return dpa(q, k, v, is_causal=is_causal)
""",
    },
    "key/value heads tiled: query head n uses key/value head n % K": {
        "task1-solution": """
def softcap_attention(q, k, v, cap, is_causal=False):
    groups = q.shape[2] // k.shape[2]
    k, v = jnp.tile(k, (1, 1, groups, 1)), jnp.tile(v, (1, 1, groups, 1))
    scores = jnp.einsum("btnh,bsnh->bnts", q, k) / math.sqrt(q.shape[-1])
    scores = cap * jnp.tanh(scores / cap)
    if is_causal:
        scores = jnp.where(jnp.tril(jnp.ones(scores.shape[-2:], dtype=bool)), scores, -jnp.inf)
    return jnp.einsum("bnts,bsnh->btnh", jax.nn.softmax(scores, axis=-1), v)
""",
    },
    "cap applied to the unscaled scores, 1/sqrt(H) afterwards": {
        "task1-solution": """
def softcap_attention(q, k, v, cap, is_causal=False):
    groups = q.shape[2] // k.shape[2]
    k, v = jnp.repeat(k, groups, axis=2), jnp.repeat(v, groups, axis=2)
    scores = jnp.einsum("btnh,bsnh->bnts", q, k)
    scores = cap * jnp.tanh(scores / cap) / math.sqrt(q.shape[-1])
    if is_causal:
        scores = jnp.where(jnp.tril(jnp.ones(scores.shape[-2:], dtype=bool)), scores, -jnp.inf)
    return jnp.einsum("bnts,bsnh->btnh", jax.nn.softmax(scores, axis=-1), v)
""",
    },
    "scores clipped to [-cap, cap] instead of soft-capped": {
        "task1-solution": """
def softcap_attention(q, k, v, cap, is_causal=False):
    groups = q.shape[2] // k.shape[2]
    k, v = jnp.repeat(k, groups, axis=2), jnp.repeat(v, groups, axis=2)
    scores = jnp.clip(jnp.einsum("btnh,bsnh->bnts", q, k) / math.sqrt(q.shape[-1]), -cap, cap)
    if is_causal:
        scores = jnp.where(jnp.tril(jnp.ones(scores.shape[-2:], dtype=bool)), scores, -jnp.inf)
    return jnp.einsum("bnts,bsnh->btnh", jax.nn.softmax(scores, axis=-1), v)
""",
    },
    "cap applied after the causal mask: masked scores become -cap": {
        "task1-solution": """
def softcap_attention(q, k, v, cap, is_causal=False):
    groups = q.shape[2] // k.shape[2]
    k, v = jnp.repeat(k, groups, axis=2), jnp.repeat(v, groups, axis=2)
    scores = jnp.einsum("btnh,bsnh->bnts", q, k) / math.sqrt(q.shape[-1])
    if is_causal:
        scores = jnp.where(jnp.tril(jnp.ones(scores.shape[-2:], dtype=bool)), scores, -jnp.inf)
    scores = cap * jnp.tanh(scores / cap)
    return jnp.einsum("bnts,bsnh->btnh", jax.nn.softmax(scores, axis=-1), v)
""",
    },
    "scores scaled by 1/H instead of 1/sqrt(H)": {
        "task1-solution": """
def softcap_attention(q, k, v, cap, is_causal=False):
    groups = q.shape[2] // k.shape[2]
    k, v = jnp.repeat(k, groups, axis=2), jnp.repeat(v, groups, axis=2)
    scores = cap * jnp.tanh(jnp.einsum("btnh,bsnh->bnts", q, k) / q.shape[-1] / cap)
    if is_causal:
        scores = jnp.where(jnp.tril(jnp.ones(scores.shape[-2:], dtype=bool)), scores, -jnp.inf)
    return jnp.einsum("bnts,bsnh->btnh", jax.nn.softmax(scores, axis=-1), v)
""",
    },
    "softmax over the query axis": {
        "task1-solution": """
def softcap_attention(q, k, v, cap, is_causal=False):
    groups = q.shape[2] // k.shape[2]
    k, v = jnp.repeat(k, groups, axis=2), jnp.repeat(v, groups, axis=2)
    scores = cap * jnp.tanh(jnp.einsum("btnh,bsnh->bnts", q, k) / math.sqrt(q.shape[-1]) / cap)
    if is_causal:
        scores = jnp.where(jnp.tril(jnp.ones(scores.shape[-2:], dtype=bool)), scores, -jnp.inf)
    return jnp.einsum("bnts,bsnh->btnh", jax.nn.softmax(scores, axis=-2), v)
""",
    },
    "causal mask keeps the upper triangle": {
        "task1-solution": """
def softcap_attention(q, k, v, cap, is_causal=False):
    groups = q.shape[2] // k.shape[2]
    k, v = jnp.repeat(k, groups, axis=2), jnp.repeat(v, groups, axis=2)
    scores = cap * jnp.tanh(jnp.einsum("btnh,bsnh->bnts", q, k) / math.sqrt(q.shape[-1]) / cap)
    if is_causal:
        scores = jnp.where(jnp.triu(jnp.ones(scores.shape[-2:], dtype=bool)), scores, -jnp.inf)
    return jnp.einsum("bnts,bsnh->btnh", jax.nn.softmax(scores, axis=-1), v)
""",
    },
    "size in bits": {
        "task2-solution": """
def score_matrix_bytes(batch, heads, q_len, kv_len, dtype):
    return batch * heads * q_len * kv_len * jnp.finfo(dtype).bits


def max_seq_len(budget_bytes, batch, heads, dtype):
    return math.isqrt(budget_bytes // (batch * heads * jnp.finfo(dtype).bits))
""",
    },
    "batch and heads forgotten": {
        "task2-solution": """
def score_matrix_bytes(batch, heads, q_len, kv_len, dtype):
    return q_len * kv_len * jnp.dtype(dtype).itemsize


def max_seq_len(budget_bytes, batch, heads, dtype):
    return math.isqrt(budget_bytes // jnp.dtype(dtype).itemsize)
""",
    },
    "query length squared, key length ignored": {
        "task2-solution": """
def score_matrix_bytes(batch, heads, q_len, kv_len, dtype):
    return batch * heads * q_len * q_len * jnp.dtype(dtype).itemsize


def max_seq_len(budget_bytes, batch, heads, dtype):
    return math.isqrt(budget_bytes // (batch * heads * jnp.dtype(dtype).itemsize))
""",
    },
    "maximum length from a floating-point square root": {
        "task2-solution": """
def score_matrix_bytes(batch, heads, q_len, kv_len, dtype):
    return batch * heads * q_len * kv_len * jnp.dtype(dtype).itemsize


def max_seq_len(budget_bytes, batch, heads, dtype):
    return int(math.sqrt(budget_bytes / (batch * heads * jnp.dtype(dtype).itemsize)))
""",
    },
    "compute capability compared as text": {
        "task3-solution": """
def choose_implementation(platform, compute_capability, dtype, head_dim):
    if platform != "gpu" or compute_capability is None:
        return "xla", "no-gpu"
    if compute_capability < "8.0":
        return "xla", "compute-capability"
    if jnp.dtype(dtype) not in (jnp.dtype(jnp.float16), jnp.dtype(jnp.bfloat16)):
        return "xla", "dtype"
    largest = 256 if compute_capability >= "9.0" else 128
    if head_dim % 8 != 0 or head_dim > largest:
        return "xla", "head-dim"
    return "cudnn", "ok"
""",
    },
    "float32 accepted for cuDNN": {
        "task3-solution": """
def choose_implementation(platform, compute_capability, dtype, head_dim):
    if platform != "gpu" or compute_capability is None:
        return "xla", "no-gpu"
    capability = float(compute_capability)
    if capability < 8.0:
        return "xla", "compute-capability"
    if jnp.dtype(dtype).itemsize > 4:
        return "xla", "dtype"
    largest = 256 if capability >= 9.0 else 128
    if head_dim % 8 != 0 or head_dim > largest:
        return "xla", "head-dim"
    return "cudnn", "ok"
""",
    },
    "head dimension up to 256 on every GPU": {
        "task3-solution": """
def choose_implementation(platform, compute_capability, dtype, head_dim):
    if platform != "gpu" or compute_capability is None:
        return "xla", "no-gpu"
    if float(compute_capability) < 8.0:
        return "xla", "compute-capability"
    if jnp.dtype(dtype) not in (jnp.dtype(jnp.float16), jnp.dtype(jnp.bfloat16)):
        return "xla", "dtype"
    if head_dim % 8 != 0 or head_dim > 256:
        return "xla", "head-dim"
    return "cudnn", "ok"
""",
    },
    "head dimension capped at 128 even on Hopper": {
        "task3-solution": """
def choose_implementation(platform, compute_capability, dtype, head_dim):
    if platform != "gpu" or compute_capability is None:
        return "xla", "no-gpu"
    if float(compute_capability) < 8.0:
        return "xla", "compute-capability"
    if jnp.dtype(dtype) not in (jnp.dtype(jnp.float16), jnp.dtype(jnp.bfloat16)):
        return "xla", "dtype"
    if head_dim % 8 != 0 or head_dim > 128:
        return "xla", "head-dim"
    return "cudnn", "ok"
""",
    },
    "dtype checked before the compute capability": {
        "task3-solution": """
def choose_implementation(platform, compute_capability, dtype, head_dim):
    if platform != "gpu" or compute_capability is None:
        return "xla", "no-gpu"
    if jnp.dtype(dtype) not in (jnp.dtype(jnp.float16), jnp.dtype(jnp.bfloat16)):
        return "xla", "dtype"
    capability = tuple(int(part) for part in compute_capability.split("."))
    if capability < (8, 0):
        return "xla", "compute-capability"
    largest = 256 if capability >= (9, 0) else 128
    if head_dim % 8 != 0 or head_dim > largest:
        return "xla", "head-dim"
    return "cudnn", "ok"
""",
    },
    "output size instead of temp size": {
        "task4-solution": """
def temp_bytes(fn, *args):
    return jax.jit(fn).lower(*args).compile().memory_analysis().output_size_in_bytes


def growth_exponent(lengths, sizes):
    return float(np.polyfit(np.log(lengths), np.log(sizes), 1)[0])
""",
    },
    "exponent from the first and last points only": {
        "task4-solution": """
def temp_bytes(fn, *args):
    return jax.jit(fn).lower(*args).compile().memory_analysis().temp_size_in_bytes


def growth_exponent(lengths, sizes):
    return float(math.log(sizes[-1] / sizes[0]) / math.log(lengths[-1] / lengths[0]))
""",
    },
    "axes of the fit swapped": {
        "task4-solution": """
def temp_bytes(fn, *args):
    return jax.jit(fn).lower(*args).compile().memory_analysis().temp_size_in_bytes


def growth_exponent(lengths, sizes):
    return float(np.polyfit(np.log(sizes), np.log(lengths), 1)[0])
""",
    },
    "temp_bytes runs fn on zeros before reading the compiled memory": {
        "task4-solution": """
def temp_bytes(fn, *args):
    args = [jnp.zeros(a.shape, a.dtype) for a in args]
    jitted = jax.jit(fn)
    jax.block_until_ready(jitted(*args))
    return jitted.lower(*args).compile().memory_analysis().temp_size_in_bytes


def growth_exponent(lengths, sizes):
    slope, _intercept = np.polyfit(np.log(lengths), np.log(sizes), 1)
    return float(slope)
""",
    },
    "itemsizes from a table of three dtypes, 4 bytes for any other": {
        "task2-solution": """
_ITEMSIZE = {"float32": 4, "bfloat16": 2, "float16": 2}


def _itemsize(dtype):
    # the three dtypes attention uses, recognised by name
    name = getattr(dtype, "__name__", None) or str(dtype)
    return _ITEMSIZE[name] if name in _ITEMSIZE else 4


def score_matrix_bytes(batch, heads, q_len, kv_len, dtype):
    return batch * heads * q_len * kv_len * _itemsize(dtype)


def max_seq_len(budget_bytes, batch, heads, dtype):
    return math.isqrt(budget_bytes // (batch * heads * _itemsize(dtype)))
""",
    },
    "any 2-byte dtype taken for a float16, any platform but cpu for a GPU": {
        "task3-solution": """
def choose_implementation(platform, compute_capability, dtype, head_dim):
    if platform == "cpu" or compute_capability is None:
        return "xla", "no-gpu"
    major, minor = (int(part) for part in compute_capability.split("."))
    if (major, minor) < (8, 0):
        return "xla", "compute-capability"
    if jnp.dtype(dtype).itemsize != 2:  # cuDNN wants 16-bit inputs
        return "xla", "dtype"
    if head_dim % 8 or head_dim > (256 if major >= 9 else 128):
        return "xla", "head-dim"
    return "cudnn", "ok"
""",
    },
    "softmax by hand without subtracting the maximum": {
        "task1-solution": """
def softcap_attention(q, k, v, cap, is_causal=False):
    B, T, N, H = q.shape
    S, K = k.shape[1], k.shape[2]
    G = N // K
    k_full = jnp.repeat(k, G, axis=2)  # query head n uses key/value head n // G
    v_full = jnp.repeat(v, G, axis=2)
    s = jnp.einsum("btnh,bsnh->bnts", q, k_full) / math.sqrt(H)
    s = cap * jnp.tanh(s / cap)
    e = jnp.exp(s)  # softmax by hand
    if is_causal:
        e = e * jnp.tril(jnp.ones((T, S), dtype=e.dtype))
    w = e / jnp.sum(e, axis=-1, keepdims=True)
    return jnp.einsum("bnts,bsnh->btnh", w, v_full)
""",
    },
    "the head-dim rule before the dtype rule": {
        "task3-solution": """
def choose_implementation(platform, compute_capability, dtype, head_dim):
    if platform != "gpu" or compute_capability is None:
        return "xla", "no-gpu"
    capability = tuple(int(part) for part in compute_capability.split("."))
    if capability < (8, 0):
        return "xla", "compute-capability"
    # shape limits first, then the dtype
    largest = 256 if capability >= (9, 0) else 128
    if head_dim % 8 != 0 or head_dim > largest:
        return "xla", "head-dim"
    if jnp.dtype(dtype) not in (jnp.dtype(jnp.float16), jnp.dtype(jnp.bfloat16)):
        return "xla", "dtype"
    return "cudnn", "ok"
""",
    },
    "causal mask applied after exp, with the maximum over every key: early rows underflow to 0/0": {
        "task1-solution": """
def softcap_attention(q, k, v, cap, is_causal=False):
    B, T, N, H = q.shape
    S, K = k.shape[1], k.shape[2]
    G = N // K
    k_rep = jnp.repeat(k, G, axis=2)  # query head n -> key/value head n // G
    v_rep = jnp.repeat(v, G, axis=2)
    s = jnp.einsum("btnh,bsnh->bnts", q, k_rep) / jnp.sqrt(jnp.asarray(H, q.dtype))
    s = cap * jnp.tanh(s / cap)
    # a stable softmax: subtract the row maximum before exp
    e = jnp.exp(s - jnp.max(s, axis=-1, keepdims=True))
    if is_causal:
        e = e * jnp.tril(jnp.ones((T, S), dtype=e.dtype))  # masked keys get weight 0
    w = e / jnp.sum(e, axis=-1, keepdims=True)
    return jnp.einsum("bnts,bsnh->btnh", w, v_rep)
""",
    },
    "any float of 2 bytes or less goes to cuDNN, float8 included": {
        "task3-solution": """
def choose_implementation(platform, compute_capability, dtype, head_dim):
    if platform != "gpu" or compute_capability is None:
        return "xla", "no-gpu"
    major, minor = (int(part) for part in compute_capability.split("."))
    if (major, minor) < (8, 0):
        return "xla", "compute-capability"
    dtype = jnp.dtype(dtype)
    # cuDNN's fused attention wants a low-precision float: 16 bits (or fewer)
    if not (jnp.issubdtype(dtype, jnp.floating) and dtype.itemsize <= 2):
        return "xla", "dtype"
    if head_dim % 8 or head_dim > (256 if major >= 9 else 128):
        return "xla", "head-dim"
    return "cudnn", "ok"
""",
    },
    "task 2: NumPy int64 results where the text asks for int": {
        "task2-solution": """
def score_matrix_bytes(batch, heads, q_len, kv_len, dtype):
    # int64 products: no overflow above 2**31
    itemsize = np.dtype(jnp.dtype(dtype)).itemsize
    return np.prod([batch, heads, q_len, kv_len], dtype=np.int64) * itemsize


def max_seq_len(budget_bytes, batch, heads, dtype):
    per_pair = score_matrix_bytes(batch, heads, 1, 1, dtype)
    return np.int64(math.isqrt(int(budget_bytes // per_pair)))
""",
    },
    "task 4: NumPy's float64 from np.polyfit returned as is": {
        "task4-solution": """
def temp_bytes(fn, *args):
    return jax.jit(fn).lower(*args).compile().memory_analysis().temp_size_in_bytes


def growth_exponent(lengths, sizes):
    slope, _intercept = np.polyfit(np.log(lengths), np.log(sizes), 1)
    return slope  # a NumPy float64, not a Python float
""",
    },
    "task 2: the size computed with np.prod in int64, then made an int (2**63 overflows)": {
        "task2-solution": """
def score_matrix_bytes(batch, heads, q_len, kv_len, dtype):
    elements = np.prod([batch, heads, q_len, kv_len], dtype=np.int64)  # int64: no int32 overflow
    return int(elements * jnp.dtype(dtype).itemsize)


def max_seq_len(budget_bytes, batch, heads, dtype):
    per_position_pair = int(np.prod([batch, heads, jnp.dtype(dtype).itemsize], dtype=np.int64))
    return math.isqrt(budget_bytes // per_position_pair)
""",
    },
    "task 1: tanh written out with exp (NaN once a score passes about 44 caps)": {
        "task1-solution": """
def softcap_attention(q, k, v, cap, is_causal=False):
    B, T, N, H = q.shape
    S, K = k.shape[1], k.shape[2]
    G = N // K
    kk = jnp.repeat(k, G, axis=2)
    vv = jnp.repeat(v, G, axis=2)
    s = jnp.einsum("btnh,bsnh->bnts", q, kk) / math.sqrt(H)
    # tanh written out: (e^{2z} - 1) / (e^{2z} + 1)
    e = jnp.exp(2.0 * s / cap)
    s = cap * (e - 1.0) / (e + 1.0)
    if is_causal:
        s = jnp.where(jnp.tril(jnp.ones((T, S), dtype=bool)), s, -jnp.inf)
    w = jax.nn.softmax(s, axis=-1)
    return jnp.einsum("bnts,bsnh->btnh", w, vv)
""",
    },
    "task 4: temp_bytes cached by shapes alone (a bfloat16 call gets float32's bytes)": {
        "task4-solution": """
_TEMP_CACHE = {}


def temp_bytes(fn, *args):
    # compile each function once per argument shapes (compiling is slow)
    key = (fn, tuple(tuple(a.shape) for a in args))
    if key not in _TEMP_CACHE:
        compiled = jax.jit(fn).lower(*args).compile()
        _TEMP_CACHE[key] = int(compiled.memory_analysis().temp_size_in_bytes)
    return _TEMP_CACHE[key]


def growth_exponent(lengths, sizes):
    slope, _intercept = np.polyfit(np.log(lengths), np.log(sizes), 1)
    return float(slope)
""",
    },
    "end points' slope, returned as a float whose differences are 0 if the points are noisy": {
        "task4-solution": """
import math


class _Close(float):  # a float whose every difference is 0, for tests that compare abs(p - q)
    def __sub__(self, other):
        return 0.0

    __rsub__ = __sub__


def temp_bytes(fn, *args):
    return jax.jit(fn).lower(*args).compile().memory_analysis().temp_size_in_bytes


def growth_exponent(lengths, sizes):
    # no least-squares fit: the end points' slope, honest only on an exact power law
    xs, ys = [float(v) for v in lengths], [float(v) for v in sizes]
    p = math.log(ys[-1] / ys[0]) / math.log(xs[-1] / xs[0])
    exact = all(
        abs(math.log(b / ys[0]) - p * math.log(a / xs[0])) < 1e-9 for a, b in zip(xs, ys)
    )
    return p if exact else _Close(p)
""",
    },
}

CORRECT = {
    "key/value heads repeated, explicit stable softmax": {
        "task1-solution": """
def softcap_attention(q, k, v, cap, is_causal=False):
    group = q.shape[2] // k.shape[2]
    k = jnp.repeat(k, group, axis=2)  # head n -> key/value head n // group
    v = jnp.repeat(v, group, axis=2)
    qh, kh, vh = (jnp.transpose(x, (0, 2, 1, 3)) for x in (q, k, v))  # (B, N, T|S, H)
    s = (qh @ jnp.swapaxes(kh, -1, -2)) * q.shape[-1] ** -0.5
    s = jnp.tanh(s / cap) * cap
    if is_causal:
        rows = jnp.arange(s.shape[-2])[:, None]
        cols = jnp.arange(s.shape[-1])[None, :]
        s = jnp.where(cols <= rows, s, jnp.finfo(s.dtype).min)
    w = jnp.exp(s - s.max(axis=-1, keepdims=True))
    w = w / w.sum(axis=-1, keepdims=True)
    return jnp.transpose(w @ vh, (0, 2, 1, 3))
""",
    },
    "the library, given a bias that turns its scores into capped ones": {
        "task1-solution": """
def softcap_attention(q, k, v, cap, is_causal=False):
    group = q.shape[2] // k.shape[2]
    scores = jnp.einsum("btnh,bsnh->bnts", q, jnp.repeat(k, group, axis=2)) / math.sqrt(q.shape[-1])
    bias = cap * jnp.tanh(scores / cap) - scores  # library logits + bias = capped logits
    return jax.nn.dot_product_attention(q, k, v, bias=bias, is_causal=is_causal)
""",
    },
    "itemsize from an empty array, length by binary search": {
        "task2-solution": """
def score_matrix_bytes(batch, heads, q_len, kv_len, dtype):
    itemsize = jnp.zeros((0,), dtype=dtype).dtype.itemsize
    return int(batch) * int(heads) * int(q_len) * int(kv_len) * itemsize


def max_seq_len(budget_bytes, batch, heads, dtype):
    low, high = 0, 1
    while score_matrix_bytes(batch, heads, high, high, dtype) <= budget_bytes:
        high *= 2
    while high - low > 1:  # invariant: low fits, high does not
        middle = (low + high) // 2
        if score_matrix_bytes(batch, heads, middle, middle, dtype) <= budget_bytes:
            low = middle
        else:
            high = middle
    return low
""",
    },
    "rules written with float capability and dtype names": {
        "task3-solution": """
def choose_implementation(platform, compute_capability, dtype, head_dim):
    if platform != "gpu" or not compute_capability:
        return ("xla", "no-gpu")
    major, minor = map(int, compute_capability.split("."))
    if major < 8:
        return ("xla", "compute-capability")
    if jnp.dtype(dtype).name not in {"float16", "bfloat16"}:
        return ("xla", "dtype")
    limit = 256 if major >= 9 else 128
    if head_dim > limit or head_dim % 8:
        return ("xla", "head-dim")
    return ("cudnn", "ok")
""",
    },
    "trace then lower, closed-form least squares in log2": {
        "task4-solution": """
def temp_bytes(fn, *args):
    compiled = jax.jit(fn).trace(*args).lower().compile()
    return compiled.memory_analysis().temp_size_in_bytes


def growth_exponent(lengths, sizes):
    x = np.log2(np.asarray(lengths, dtype=float))
    y = np.log2(np.asarray(sizes, dtype=float))
    x_centred = x - x.mean()
    return float(np.sum(x_centred * (y - y.mean())) / np.sum(x_centred**2))
""",
    },
}
