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
    "a default safety of 0.9, not the task's 0.8": {
        "task3-solution": """
def choose_batch_size(
    device, per_example_bytes, fixed_bytes, fallback_bytes, safety=0.9, multiple=8
):
    # default safety margin of 10 % (the lesson's value was 0.8)
    stats = device.memory_stats()
    if stats is not None and "bytes_limit" in stats:
        budget = stats["bytes_limit"] - stats.get("bytes_in_use", 0)
    else:
        budget = fallback_bytes
    usable = safety * budget - fixed_bytes
    batch = int(usable // per_example_bytes) // multiple * multiple
    if batch < multiple:
        raise ValueError(f"not even {multiple} examples fit in {usable:.0f} bytes")
    return batch
""",
    },
    "every label ever read kept, read through a cursor (the features trimmed)": {
        "task4-solution": """
def rebatch(chunks, batch_size):
    # features: only the rows not yet yielded; labels: one growing array and a cursor
    # (they are small, so keeping them all looks harmless)
    x_buf, y_all, pos = None, None, 0
    for x, y in chunks:
        x_buf = x if x_buf is None else np.concatenate([x_buf, x])
        y_all = y if y_all is None else np.concatenate([y_all, y])
        while len(x_buf) >= batch_size:
            xb = x_buf[:batch_size].copy()
            yb = y_all[pos : pos + batch_size].copy()
            x_buf = x_buf[batch_size:]
            pos += batch_size
            yield xb, yb
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
    "multiplies by the mask (nan * 0 is nan)": {
        "task2-solution": """
def pad_batch(x, y, batch_size):
    n = len(x)
    if n > batch_size:
        raise ValueError("too long")
    x_pad = np.concatenate([x, np.zeros((batch_size - n, *x.shape[1:]), x.dtype)])
    y_pad = np.concatenate([y, np.zeros((batch_size - n, *y.shape[1:]), y.dtype)])
    return x_pad, y_pad, np.arange(batch_size) < n


def masked_mean(values, mask):
    mask = jnp.asarray(mask, dtype=values.dtype)
    return jnp.sum(values * mask) / jnp.sum(mask)
""",
    },
    "multiplies by a float mask, guards only the division": {
        "task2-solution": """
def pad_batch(x, y, batch_size):
    n = len(x)
    if n > batch_size:
        raise ValueError("too long")
    x_pad = np.zeros((batch_size, *x.shape[1:]), x.dtype)
    y_pad = np.zeros((batch_size, *y.shape[1:]), y.dtype)
    x_pad[:n], y_pad[:n] = x, y
    return x_pad, y_pad, (np.arange(batch_size) < n).astype(np.float32)


def masked_mean(values, mask):
    weights = jnp.asarray(mask).astype(jnp.float32)
    return jnp.sum(values * weights) / jnp.maximum(jnp.sum(weights), 1.0)
""",
    },
    "yields each chunk as it comes": {
        "task4-solution": """
def rebatch(chunks, batch_size):
    for x, y in chunks:
        if len(x):
            yield x, y
""",
    },
    "pads every chunk to the batch size": {
        "task4-solution": """
def rebatch(chunks, batch_size):
    for x, y in chunks:
        for start in range(0, len(x), batch_size):
            xs, ys = x[start : start + batch_size], y[start : start + batch_size]
            pad = batch_size - len(xs)
            yield (
                np.concatenate([xs, np.zeros((pad, *x.shape[1:]), x.dtype)]),
                np.concatenate([ys, np.zeros((pad, *y.shape[1:]), y.dtype)]),
            )
""",
    },
    "drops the leftover rows of every chunk": {
        "task4-solution": """
def rebatch(chunks, batch_size):
    for x, y in chunks:
        for start in range(0, len(x) - batch_size + 1, batch_size):
            yield x[start : start + batch_size], y[start : start + batch_size]
""",
    },
    "reads the whole stream first": {
        "task4-solution": """
def rebatch(chunks, batch_size):
    chunks = list(chunks)
    if not chunks:
        return
    x = np.concatenate([c[0] for c in chunks])
    y = np.concatenate([c[1] for c in chunks])
    for start in range(0, len(x) - batch_size + 1, batch_size):
        yield x[start : start + batch_size], y[start : start + batch_size]
""",
    },
    "yields the ragged remainder at the end": {
        "task4-solution": """
def rebatch(chunks, batch_size):
    x_buf, y_buf = None, None
    for x, y in chunks:
        x_buf = x if x_buf is None else np.concatenate([x_buf, x])
        y_buf = y if y_buf is None else np.concatenate([y_buf, y])
        while len(x_buf) >= batch_size:
            yield x_buf[:batch_size], y_buf[:batch_size]
            x_buf, y_buf = x_buf[batch_size:], y_buf[batch_size:]
    if x_buf is not None and len(x_buf):
        yield x_buf, y_buf
""",
    },
    "at most one batch per chunk": {
        "task4-solution": """
def rebatch(chunks, batch_size):
    x_buf, y_buf = None, None
    for x, y in chunks:
        x_buf = x if x_buf is None else np.concatenate([x_buf, x])
        y_buf = y if y_buf is None else np.concatenate([y_buf, y])
        if len(x_buf) >= batch_size:
            yield x_buf[:batch_size], y_buf[:batch_size]
            x_buf, y_buf = x_buf[batch_size:], y_buf[batch_size:]
""",
    },
    "buffers on the device with jnp.concatenate": {
        "task4-solution": """
def rebatch(chunks, batch_size):
    x_buf, y_buf = None, None
    for x, y in chunks:
        x, y = jnp.asarray(x), jnp.asarray(y)
        x_buf = x if x_buf is None else jnp.concatenate([x_buf, x])
        y_buf = y if y_buf is None else jnp.concatenate([y_buf, y])
        while len(x_buf) >= batch_size:
            yield x_buf[:batch_size], y_buf[:batch_size]
            x_buf, y_buf = x_buf[batch_size:], y_buf[batch_size:]
""",
    },
    "peeks one chunk ahead": {
        "task4-solution": """
def rebatch(chunks, batch_size):
    it = iter(chunks)
    upcoming = next(it, None)
    x_buf, y_buf = [], []
    while upcoming is not None:
        current, upcoming = upcoming, next(it, None)
        x_buf.append(current[0])
        y_buf.append(current[1])
        x_all, y_all = np.concatenate(x_buf), np.concatenate(y_buf)
        full = len(x_all) // batch_size * batch_size
        for start in range(0, full, batch_size):
            yield x_all[start : start + batch_size], y_all[start : start + batch_size]
        x_buf, y_buf = [x_all[full:]], [y_all[full:]]
""",
    },
    "reuses one output buffer for every batch": {
        "task4-solution": """
def rebatch(chunks, batch_size):
    x_out = y_out = None
    filled = 0
    for x, y in chunks:
        if x_out is None:
            x_out = np.empty((batch_size, *x.shape[1:]), x.dtype)
            y_out = np.empty((batch_size, *y.shape[1:]), y.dtype)
        for i in range(len(x)):
            x_out[filled], y_out[filled] = x[i], y[i]
            filled += 1
            if filled == batch_size:
                yield x_out, y_out
                filled = 0
""",
    },
    "a generator, as in the lesson, where the task asks for a list": {
        "task1-solution": """
def fixed_batches(key, x, y, batch_size):
    order = np.asarray(jax.random.permutation(key, len(x)))
    for b in range(len(x) // batch_size):
        idx = order[b * batch_size : (b + 1) * batch_size]
        yield x[idx], y[idx]
""",
    },
    "rows gathered with take_along_axis, for 2-D x only": {
        "task1-solution": """
def fixed_batches(key, x, y, batch_size):
    order = np.asarray(jax.random.permutation(key, len(x)))
    batches = []
    for b in range(len(x) // batch_size):
        idx = order[b * batch_size : (b + 1) * batch_size]
        # gather whole rows of x (the index broadcast along the features) and of y
        xb = np.take_along_axis(x, idx[:, None], axis=0)
        yb = np.take_along_axis(y, idx, axis=0)
        batches.append((xb, yb))
    return batches
""",
    },
    "bytes_in_use taken off the fallback too": {
        "task3-solution": """
def choose_batch_size(
    device, per_example_bytes, fixed_bytes, fallback_bytes, safety=0.8, multiple=8
):
    stats = device.memory_stats() or {}
    # the device's limit if it reports one, else the fallback; what is in use is taken off
    budget = stats.get("bytes_limit", fallback_bytes) - stats.get("bytes_in_use", 0)
    usable = safety * budget - fixed_bytes
    batch = int(usable // per_example_bytes) // multiple * multiple
    if batch < multiple:
        raise ValueError(f"not even {multiple} examples fit in {usable:.0f} bytes")
    return batch
""",
    },
    "at least 8 examples demanded whatever the multiple": {
        "task3-solution": """
def choose_batch_size(
    device, per_example_bytes, fixed_bytes, fallback_bytes, safety=0.8, multiple=8
):
    stats = device.memory_stats()
    if stats is not None and "bytes_limit" in stats:
        budget = stats["bytes_limit"] - stats.get("bytes_in_use", 0)
    else:
        budget = fallback_bytes
    usable = safety * budget - fixed_bytes
    batch = int(usable // per_example_bytes) // multiple * multiple
    if batch < 8:  # not even one group of 8 fits
        raise ValueError(f"nothing fits in {usable:.0f} bytes")
    return batch
""",
    },
    "only the order of whole batches shuffled, each batch consecutive examples": {
        "task1-solution": """
def fixed_batches(key, x, y, batch_size):
    n_batches = len(x) // batch_size
    if n_batches == 0:
        return []
    k_offset, k_order = jax.random.split(key)
    # a random start, so the dropped rows vary, then shuffle the batch order
    offset = int(jax.random.randint(k_offset, (), 0, len(x) % batch_size + 1))
    order = np.asarray(jax.random.permutation(k_order, n_batches))
    batches = []
    for b in order:
        s = offset + int(b) * batch_size
        batches.append((x[s : s + batch_size], y[s : s + batch_size]))
    return batches
""",
    },
    "padding of float64 zeros: the padded batch changes dtype": {
        "task2-solution": """
def pad_batch(x, y, batch_size):
    n = len(x)
    if n > batch_size:
        raise ValueError(f"batch of {n} rows does not fit in {batch_size}")
    pad = batch_size - n
    x_pad = np.concatenate([x, np.zeros((pad, *x.shape[1:]))])
    y_pad = np.concatenate([y, np.zeros((pad, *y.shape[1:]))])
    return x_pad, y_pad, np.arange(batch_size) < n


def masked_mean(values, mask):
    keep = jnp.asarray(mask).astype(bool)
    return jnp.sum(jnp.where(keep, values, 0.0)) / jnp.sum(keep)
""",
    },
    "a 1-D buffer for y: its trailing dimensions lost": {
        "task4-solution": """
def rebatch(chunks, batch_size):
    buf_x = buf_y = None
    filled = 0
    for x, y in chunks:
        start = 0
        while start < len(x):
            if buf_x is None:
                buf_x = np.empty((batch_size, *x.shape[1:]), x.dtype)
                buf_y = np.empty(batch_size, y.dtype)  # labels are one number per row
            take = min(batch_size - filled, len(x) - start)
            buf_x[filled : filled + take] = x[start : start + take]
            buf_y[filled : filled + take] = y[start : start + take]
            filled += take
            start += take
            if filled == batch_size:
                yield buf_x.copy(), buf_y.copy()
                filled = 0
""",
    },
    "the first len(x) % batch_size rows always dropped, the rest shuffled": {
        "task1-solution": """
def fixed_batches(key, x, y, batch_size):
    n_batches = len(x) // batch_size
    skip = len(x) - n_batches * batch_size  # trim the ragged remainder first
    x, y = x[skip:], y[skip:]
    order = np.asarray(jax.random.permutation(key, len(x)))
    blocks = [order[b * batch_size : (b + 1) * batch_size] for b in range(n_batches)]
    return [(x[idx], y[idx]) for idx in blocks]
""",
    },
    "masked_mean with nanmean: a real nan entry skipped": {
        "task2-solution": """
def pad_batch(x, y, batch_size):
    n = len(x)
    if n > batch_size:
        raise ValueError(f"batch of {n} rows does not fit in {batch_size}")
    x_pad = np.zeros((batch_size, *x.shape[1:]), dtype=x.dtype)
    y_pad = np.zeros((batch_size, *y.shape[1:]), dtype=y.dtype)
    x_pad[:n], y_pad[:n] = x, y
    return x_pad, y_pad, np.arange(batch_size) < n


def masked_mean(values, mask):
    # padding entries become NaN, which nanmean skips
    return jnp.nanmean(jnp.where(jnp.asarray(mask).astype(bool), values, jnp.nan))
""",
    },
    "pad_batch with jnp.pad: float64 and int64 come back 32-bit": {
        "task2-solution": """
def pad_batch(x, y, batch_size):
    n = len(x)
    if n > batch_size:
        raise ValueError(f"{n} rows do not fit in a batch of {batch_size}")
    x, y = jnp.asarray(x), jnp.asarray(y)
    x_pad = jnp.pad(x, [(0, batch_size - n)] + [(0, 0)] * (x.ndim - 1))
    y_pad = jnp.pad(y, [(0, batch_size - n)] + [(0, 0)] * (y.ndim - 1))
    return x_pad, y_pad, jnp.arange(batch_size) < n


def masked_mean(values, mask):
    keep = jnp.asarray(mask).astype(bool)
    return jnp.sum(jnp.where(keep, values, 0.0)) / jnp.sum(keep)
""",
    },
    "task 1: x and y shuffled in place with one NumPy seed, the batches views of them": {
        "task1-solution": """
def fixed_batches(key, x, y, batch_size):
    # one seed from the key, the same permutation for x and y (shuffled in place, no copy)
    seed = int(jax.random.randint(key, (), 0, 2**31 - 1))
    np.random.default_rng(seed).shuffle(x)
    np.random.default_rng(seed).shuffle(y)
    n = len(x) // batch_size * batch_size
    return [(x[i : i + batch_size], y[i : i + batch_size]) for i in range(0, n, batch_size)]
""",
    },
    "task 3: nothing fits only when the batch is 0 (negative usable bytes give a negative batch)": {
        "task3-solution": """
def choose_batch_size(
    device, per_example_bytes, fixed_bytes, fallback_bytes, safety=0.8, multiple=8
):
    stats = device.memory_stats()
    if stats is not None and "bytes_limit" in stats:
        budget = stats["bytes_limit"] - stats.get("bytes_in_use", 0)
    else:
        budget = fallback_bytes
    usable = safety * budget - fixed_bytes
    batch = int(usable // per_example_bytes) // multiple * multiple
    if batch == 0:
        raise ValueError(f"no batch of {multiple} examples fits in {usable:.0f} bytes")
    return batch
""",
    },
    "task 4: the buffers made float32 and int32, whatever the chunks hold": {
        "task4-solution": """
def rebatch(chunks, batch_size):
    x_buf = y_buf = None
    filled = 0
    for x, y in chunks:
        if x_buf is None:
            # float32 features and int32 labels, what a jitted step wants
            x_buf = np.empty((batch_size, *x.shape[1:]), np.float32)
            y_buf = np.empty((batch_size, *y.shape[1:]), np.int32)
        start = 0
        while start < len(x):
            take = min(batch_size - filled, len(x) - start)
            x_buf[filled : filled + take] = x[start : start + take]
            y_buf[filled : filled + take] = y[start : start + take]
            filled += take
            start += take
            if filled == batch_size:
                yield x_buf.copy(), y_buf.copy()
                filled = 0
""",
    },
    "task 4: every row ever read kept, batches sliced from a growing array": {
        "task4-solution": """
def rebatch(chunks, batch_size):
    xs, ys = [], []
    total = used = 0  # rows read so far, rows already handed out
    for x, y in chunks:
        xs.append(x)
        ys.append(y)
        total += len(x)
        if total - used < batch_size:
            continue
        x_all, y_all = np.concatenate(xs), np.concatenate(ys)
        xs, ys = [x_all], [y_all]
        while total - used >= batch_size:
            yield x_all[used : used + batch_size], y_all[used : used + batch_size]
            used += batch_size
""",
    },
    "task 4: every chunk read kept, batches sliced through a cursor": {
        "task4-solution": """
def rebatch(chunks, batch_size):
    # every chunk read is kept in `seen`; a cursor marks the rows already yielded
    seen = []      # (x, y) chunks read so far
    starts = []    # global index of each chunk's first row
    total = 0      # rows read
    done = 0       # rows yielded
    for x, y in chunks:
        seen.append((x, y))
        starts.append(total)
        total += len(x)
        while total - done >= batch_size:
            xs, ys = [], []
            need_lo, need_hi = done, done + batch_size
            for (cx, cy), s in zip(seen, starts):
                lo, hi = max(need_lo, s), min(need_hi, s + len(cx))
                if lo < hi:
                    xs.append(cx[lo - s : hi - s])
                    ys.append(cy[lo - s : hi - s])
            yield np.concatenate(xs), np.concatenate(ys)
            done += batch_size
""",
    },
    "task 3: examples counted with jnp.floor_divide (float32: a multiple short at GiB budgets)": {
        "task3-solution": """
def choose_batch_size(
    device, per_example_bytes, fixed_bytes, fallback_bytes, safety=0.8, multiple=8
):
    stats = device.memory_stats()
    if stats is not None and "bytes_limit" in stats:
        budget = stats["bytes_limit"] - stats.get("bytes_in_use", 0)
    else:
        budget = fallback_bytes
    usable = safety * budget - fixed_bytes
    # how many examples fit, rounded down to the multiple
    batch = int(jnp.floor_divide(usable, per_example_bytes)) // multiple * multiple
    if batch < multiple:
        raise ValueError(f"not even {multiple} examples fit in {usable:.0f} bytes")
    return batch
""",
    },
    "task 1: a random start row, then consecutive batches in shuffled order": {
        "task1-solution": """
def fixed_batches(key, x, y, batch_size):
    # cheap contiguous reads: start the epoch at a random row (wrapping around),
    # cut it into consecutive batches, then shuffle the order of the batches
    n = len(x)
    n_batches = n // batch_size
    if n_batches == 0:
        return []
    shift_key, order_key = jax.random.split(key)
    shift = int(jax.random.randint(shift_key, (), 0, n))
    rows = (np.arange(n) + shift) % n
    batch_order = np.asarray(jax.random.permutation(order_key, n_batches))
    batches = []
    for b in batch_order:
        idx = rows[b * batch_size : (b + 1) * batch_size]
        batches.append((x[idx], y[idx]))
    return batches
""",
    },
    "safety rounded to a whole percent, for integer arithmetic (0.875 becomes 0.88)": {
        "task3-solution": """
def choose_batch_size(
    device, per_example_bytes, fixed_bytes, fallback_bytes, safety=0.8, multiple=8
):
    # integer arithmetic throughout: GiB-sized byte counts must stay exact (no float rounding)
    stats = device.memory_stats()
    if stats is not None and "bytes_limit" in stats:
        budget = int(stats["bytes_limit"]) - int(stats.get("bytes_in_use", 0))
    else:
        budget = int(fallback_bytes)
    percent = round(safety * 100)  # the safety factor as a whole percentage
    usable = budget * percent // 100 - fixed_bytes
    batch = usable // per_example_bytes // multiple * multiple
    if batch < multiple:
        raise ValueError(f"not even {multiple} examples fit in {usable} bytes")
    return int(batch)
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
    "padding by slice assignment, jnp.mean with where=": {
        "task2-solution": """
def pad_batch(x, y, batch_size):
    if len(x) > batch_size:
        raise ValueError(f"{len(x)} rows > {batch_size}")
    x_pad = np.zeros((batch_size,) + x.shape[1:], x.dtype)
    y_pad = np.zeros((batch_size,) + y.shape[1:], y.dtype)
    x_pad[: len(x)] = x
    y_pad[: len(y)] = y
    return x_pad, y_pad, np.arange(batch_size) < len(x)


def masked_mean(values, mask):
    return jnp.mean(values, where=jnp.asarray(mask) != 0)
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
    "a row queue of index ranges": {
        "task4-solution": """
import collections


def rebatch(chunks, batch_size):
    pending = collections.deque()
    rows = 0
    for x, y in chunks:
        if len(x):
            pending.append((x, y))
            rows += len(x)
        while rows >= batch_size:
            parts_x, parts_y, need = [], [], batch_size
            while need:
                x0, y0 = pending[0]
                take = min(need, len(x0))
                parts_x.append(x0[:take])
                parts_y.append(y0[:take])
                if take == len(x0):
                    pending.popleft()
                else:
                    pending[0] = (x0[take:], y0[take:])
                need -= take
            rows -= batch_size
            yield np.concatenate(parts_x), np.concatenate(parts_y)
""",
    },
    "preallocated buffer, copies handed out": {
        "task4-solution": """
def rebatch(chunks, batch_size):
    buf_x = buf_y = None
    filled = 0
    for x, y in chunks:
        start = 0
        while start < len(x):
            if buf_x is None:
                buf_x = np.empty((batch_size, *x.shape[1:]), x.dtype)
                buf_y = np.empty((batch_size, *y.shape[1:]), y.dtype)
            take = min(batch_size - filled, len(x) - start)
            buf_x[filled : filled + take] = x[start : start + take]
            buf_y[filled : filled + take] = y[start : start + take]
            filled += take
            start += take
            if filled == batch_size:
                yield buf_x.copy(), buf_y.copy()
                filled = 0
""",
    },
}
