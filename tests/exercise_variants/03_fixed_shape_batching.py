"""Wrong-but-plausible and alternative-correct answers for solutions/03_fixed_shape_batching."""

WRONG = {
    "ragged last batch kept (ceil division)": {
        "task1-solution": """
def fixed_batches(key, x, y, batch_size):
    order = np.asarray(jax.random.permutation(key, len(x)))
    return [
        (x[order[s : s + batch_size]], y[order[s : s + batch_size]])
        for s in range(0, len(x), batch_size)
    ]
""",
    },
    "one batch too few (off by one)": {
        "task1-solution": """
def fixed_batches(key, x, y, batch_size):
    order = np.asarray(jax.random.permutation(key, len(x)))
    count = max((len(x) - 1) // batch_size, 0)
    parts = [order[b * batch_size : (b + 1) * batch_size] for b in range(count)]
    return [(x[idx], y[idx]) for idx in parts]
""",
    },
    "not shuffled": {
        "task1-solution": """
def fixed_batches(key, x, y, batch_size):
    return [
        (x[b * batch_size : (b + 1) * batch_size], y[b * batch_size : (b + 1) * batch_size])
        for b in range(len(x) // batch_size)
    ]
""",
    },
    "order ignores the key (fixed NumPy seed)": {
        "task1-solution": """
def fixed_batches(key, x, y, batch_size):
    order = np.random.default_rng(0).permutation(len(x))
    parts = [order[b * batch_size : (b + 1) * batch_size] for b in range(len(x) // batch_size)]
    return [(x[idx], y[idx]) for idx in parts]
""",
    },
    "x and y shuffled with different keys": {
        "task1-solution": """
def fixed_batches(key, x, y, batch_size):
    kx, ky = jax.random.split(key)
    ox = np.asarray(jax.random.permutation(kx, len(x)))
    oy = np.asarray(jax.random.permutation(ky, len(y)))
    return [
        (x[ox[b * batch_size : (b + 1) * batch_size]], y[oy[b * batch_size : (b + 1) * batch_size]])
        for b in range(len(x) // batch_size)
    ]
""",
    },
    "mean over the padded batch": {
        "task2-solution": """
def pad_batch(x, y, batch_size):
    n = len(x)
    if n > batch_size:
        raise ValueError("too long")
    x_pad = np.concatenate([x, np.zeros((batch_size - n, *x.shape[1:]), x.dtype)])
    y_pad = np.concatenate([y, np.zeros((batch_size - n, *y.shape[1:]), y.dtype)])
    return x_pad, y_pad, np.arange(batch_size) < n


def masked_mean(values, mask):
    return jnp.mean(values * mask)
""",
    },
    "boolean indexing does not work under jit": {
        "task2-solution": """
def pad_batch(x, y, batch_size):
    n = len(x)
    if n > batch_size:
        raise ValueError("too long")
    x_pad = np.concatenate([x, np.zeros((batch_size - n, *x.shape[1:]), x.dtype)])
    y_pad = np.concatenate([y, np.zeros((batch_size - n, *y.shape[1:]), y.dtype)])
    return x_pad, y_pad, np.arange(batch_size) < n


def masked_mean(values, mask):
    return jnp.mean(values[jnp.asarray(mask, bool)])
""",
    },
    "mask marks one row too many": {
        "task2-solution": """
def pad_batch(x, y, batch_size):
    n = len(x)
    if n > batch_size:
        raise ValueError("too long")
    x_pad = np.concatenate([x, np.zeros((batch_size - n, *x.shape[1:]), x.dtype)])
    y_pad = np.concatenate([y, np.zeros((batch_size - n, *y.shape[1:]), y.dtype)])
    return x_pad, y_pad, np.arange(batch_size) <= n


def masked_mean(values, mask):
    mask = jnp.asarray(mask, values.dtype)
    return jnp.sum(values * mask) / jnp.sum(mask)
""",
    },
    "memory_stats() of None not handled": {
        "task3-solution": """
def choose_batch_size(
    device, per_example_bytes, fixed_bytes, fallback_bytes, safety=0.8, multiple=8
):
    stats = device.memory_stats()
    budget = stats.get("bytes_limit", fallback_bytes) - stats.get("bytes_in_use", 0)
    batch = int((safety * budget - fixed_bytes) // per_example_bytes) // multiple * multiple
    if batch < multiple:
        raise ValueError("nothing fits")
    return batch
""",
    },
    "bytes already in use ignored": {
        "task3-solution": """
def choose_batch_size(
    device, per_example_bytes, fixed_bytes, fallback_bytes, safety=0.8, multiple=8
):
    stats = device.memory_stats() or {}
    budget = stats.get("bytes_limit", fallback_bytes)
    batch = int((safety * budget - fixed_bytes) // per_example_bytes) // multiple * multiple
    if batch < multiple:
        raise ValueError("nothing fits")
    return batch
""",
    },
    "rounded to the nearest multiple": {
        "task3-solution": """
def choose_batch_size(
    device, per_example_bytes, fixed_bytes, fallback_bytes, safety=0.8, multiple=8
):
    stats = device.memory_stats()
    if stats and "bytes_limit" in stats:
        budget = stats["bytes_limit"] - stats.get("bytes_in_use", 0)
    else:
        budget = fallback_bytes
    batch = round((safety * budget - fixed_bytes) / per_example_bytes / multiple) * multiple
    if batch < multiple:
        raise ValueError("nothing fits")
    return int(batch)
""",
    },
    "safety applied after the fixed bytes": {
        "task3-solution": """
def choose_batch_size(
    device, per_example_bytes, fixed_bytes, fallback_bytes, safety=0.8, multiple=8
):
    stats = device.memory_stats()
    if stats and "bytes_limit" in stats:
        budget = stats["bytes_limit"] - stats.get("bytes_in_use", 0)
    else:
        budget = fallback_bytes
    batch = int(safety * (budget - fixed_bytes) // per_example_bytes) // multiple * multiple
    if batch < multiple:
        raise ValueError("nothing fits")
    return batch
""",
    },
    "counts distinct shapes, not signatures": {
        "task4-solution": """
def count_compilations(fn, batches):
    jitted = jax.jit(fn)
    shapes = set()
    for batch in batches:
        jitted(batch)
        shapes.add(np.shape(batch))
    return len(shapes)
""",
    },
    "counts calls, not compilations": {
        "task4-solution": """
def count_compilations(fn, batches):
    jitted = jax.jit(fn)
    calls = 0
    for batch in batches:
        jitted(batch)
        calls += 1
    return calls
""",
    },
    "reads the cache of a shared jit": {
        "task4-solution": """
_jitted = {}


def count_compilations(fn, batches):
    jitted = _jitted.setdefault(fn, jax.jit(fn))
    before = jitted._cache_size()
    for batch in batches:
        jitted(batch)
    return jitted._cache_size() - before
""",
    },
}

CORRECT = {
    "shuffle by sorting uniform numbers, batches by reshape": {
        "task1-solution": """
def fixed_batches(key, x, y, batch_size):
    count = len(x) // batch_size
    order = np.argsort(np.asarray(jax.random.uniform(key, (len(x),))))[: count * batch_size]
    order = order.reshape(count, batch_size)
    return [(jnp.asarray(x)[idx], jnp.asarray(y)[idx]) for idx in order]
""",
    },
    "permutation of the arrays themselves with one key": {
        "task1-solution": """
def fixed_batches(key, x, y, batch_size):
    xs = jax.random.permutation(key, jnp.asarray(x))
    ys = jax.random.permutation(key, jnp.asarray(y))
    n = len(x) - len(x) % batch_size
    if n == 0:
        return []
    return list(zip(jnp.split(xs[:n], n // batch_size), jnp.split(ys[:n], n // batch_size)))
""",
    },
    "np.pad and jnp.where": {
        "task2-solution": """
def pad_batch(x, y, batch_size):
    pad = batch_size - x.shape[0]
    if pad < 0:
        raise ValueError("batch too long")
    widths = lambda a: [(0, pad)] + [(0, 0)] * (a.ndim - 1)
    mask = np.concatenate([np.ones(x.shape[0], np.float32), np.zeros(pad, np.float32)])
    return np.pad(x, widths(x)), np.pad(y, widths(y)), mask


def masked_mean(values, mask):
    keep = jnp.asarray(mask) > 0
    return jnp.where(keep, values, 0).sum() / keep.sum()
""",
    },
    "integer arithmetic and a loop": {
        "task3-solution": """
import math


def choose_batch_size(
    device, per_example_bytes, fixed_bytes, fallback_bytes, safety=0.8, multiple=8
):
    stats = device.memory_stats() or {}
    if "bytes_limit" in stats:
        budget = stats["bytes_limit"] - stats.get("bytes_in_use", 0)
    else:
        budget = fallback_bytes
    usable = safety * budget - fixed_bytes
    steps = math.floor(usable / per_example_bytes / multiple)
    while steps > 0 and steps * multiple * per_example_bytes > usable:
        steps -= 1
    if steps < 1:
        raise ValueError("no batch fits")
    return steps * multiple
""",
    },
    "a list as counter, jit used as a decorator": {
        "task4-solution": """
def count_compilations(fn, batches):
    traces = []

    @jax.jit
    def step(batch):
        traces.append(batch.shape)
        return fn(batch)

    for batch in batches:
        step(batch)
    return len(traces)
""",
    },
}
