"""Wrong-but-plausible and alternative-correct answers for solutions/02_async_timing."""

WRONG = {
    "forgets block_until_ready: times only the dispatch": {
        "task1-solution": """
def benchmark(fn, *args, warmup=1, repeats=5, clock=time.perf_counter):
    if repeats < 1:
        raise ValueError("repeats")
    for _ in range(warmup):
        fn(*args)
    times = []
    for _ in range(repeats):
        start = clock()
        fn(*args)
        times.append(clock() - start)
    return statistics.median(times)
""",
    },
    "warm-up result not waited for": {
        "task1-solution": """
def benchmark(fn, *args, warmup=1, repeats=5, clock=time.perf_counter):
    if repeats < 1:
        raise ValueError("repeats")
    for _ in range(warmup):
        fn(*args)
    times = []
    for _ in range(repeats):
        start = clock()
        jax.block_until_ready(fn(*args))
        times.append(clock() - start)
    return statistics.median(times)
""",
    },
    "mean instead of median": {
        "task1-solution": """
def benchmark(fn, *args, warmup=1, repeats=5, clock=time.perf_counter):
    if repeats < 1:
        raise ValueError("repeats")
    for _ in range(warmup):
        jax.block_until_ready(fn(*args))
    times = []
    for _ in range(repeats):
        start = clock()
        jax.block_until_ready(fn(*args))
        times.append(clock() - start)
    return statistics.mean(times)
""",
    },
    "no warm-up: the compile is timed": {
        "task1-solution": """
def benchmark(fn, *args, warmup=1, repeats=5, clock=time.perf_counter):
    if repeats < 1:
        raise ValueError("repeats")
    times = []
    for _ in range(repeats):
        start = clock()
        jax.block_until_ready(fn(*args))
        times.append(clock() - start)
    return statistics.median(times)
""",
    },
    "block_until_ready method fails on pytrees": {
        "task1-solution": """
def benchmark(fn, *args, warmup=1, repeats=5, clock=time.perf_counter):
    if repeats < 1:
        raise ValueError("repeats")
    for _ in range(warmup):
        fn(*args).block_until_ready()
    times = []
    for _ in range(repeats):
        start = clock()
        fn(*args).block_until_ready()
        times.append(clock() - start)
    return statistics.median(times)
""",
    },
    "ignores the injected clock": {
        "task1-solution": """
def benchmark(fn, *args, warmup=1, repeats=5, clock=time.perf_counter):
    if repeats < 1:
        raise ValueError("repeats")
    for _ in range(warmup):
        jax.block_until_ready(fn(*args))
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        jax.block_until_ready(fn(*args))
        times.append(time.perf_counter() - start)
    return statistics.median(times)
""",
    },
    "every log point's mean fetched after the last step, none at its log point": {
        "task2-solution": """
def train(step, params, batches, log_every):
    means, window = [], []
    for number, batch in enumerate(batches, start=1):
        params, loss = step(params, batch)
        window.append(loss)
        if number % log_every == 0:
            means.append((number, jnp.mean(jnp.stack(window))))  # stays on the device
            window = []
    # one fetch for the whole run, after the last step: never a wait in between
    values = jax.device_get([mean for _, mean in means])
    return params, [(number, float(value)) for (number, _), value in zip(means, values)]
""",
    },
    "float(loss) every step": {
        "task2-solution": """
def train(step, params, batches, log_every):
    history, window = [], []
    for number, batch in enumerate(batches, start=1):
        params, loss = step(params, batch)
        window.append(float(loss))
        if number % log_every == 0:
            history.append((number, sum(window) / len(window)))
            window = []
    return params, history
""",
    },
    "np.asarray(loss) every step": {
        "task2-solution": """
def train(step, params, batches, log_every):
    history, window = [], []
    for number, batch in enumerate(batches, start=1):
        params, loss = step(params, batch)
        window.append(np.asarray(loss))
        if number % log_every == 0:
            history.append((number, float(np.mean(window))))
            window = []
    return params, history
""",
    },
    "device_get every step": {
        "task2-solution": """
def train(step, params, batches, log_every):
    history, window = [], []
    for number, batch in enumerate(batches, start=1):
        params, loss = step(params, batch)
        window.append(jax.device_get(loss))
        if number % log_every == 0:
            history.append((number, float(np.mean(window))))
            window = []
    return params, history
""",
    },
    "block_until_ready on every step (a sync without a transfer)": {
        "task2-solution": """
def train(step, params, batches, log_every):
    history, window = [], []
    for number, batch in enumerate(batches, start=1):
        params, loss = step(params, batch)
        loss.block_until_ready()
        window.append(loss)
        if number % log_every == 0:
            history.append((number, float(jax.device_get(jnp.mean(jnp.stack(window))))))
            window = []
    return params, history
""",
    },
    "jax.block_until_ready of the step's outputs every step": {
        "task2-solution": """
def train(step, params, batches, log_every):
    history, total = [], 0.0
    for number, batch in enumerate(batches, start=1):
        params, loss = jax.block_until_ready(step(params, batch))
        total = total + loss
        if number % log_every == 0:
            history.append((number, float(jax.device_get(total)) / log_every))
            total = 0.0
    return params, history
""",
    },
    "loss.item() every step": {
        "task2-solution": """
def train(step, params, batches, log_every):
    history, total = [], 0.0
    for number, batch in enumerate(batches, start=1):
        params, loss = step(params, batch)
        total += loss.item()
        if number % log_every == 0:
            history.append((number, total / log_every))
            total = 0.0
    return params, history
""",
    },
    "prints the loss every step": {
        "task2-solution": """
def train(step, params, batches, log_every):
    history, window = [], []
    for number, batch in enumerate(batches, start=1):
        params, loss = step(params, batch)
        print(f"step {number}: loss {loss:.4f}")
        window.append(loss)
        if number % log_every == 0:
            history.append((number, float(jax.device_get(jnp.mean(jnp.stack(window))))))
            window = []
    return params, history
""",
    },
    "tracks the best loss with an if every step": {
        "task2-solution": """
def train(step, params, batches, log_every):
    history, window, best = [], [], None
    for number, batch in enumerate(batches, start=1):
        params, loss = step(params, batch)
        if best is None or loss < best:
            best = loss
        window.append(loss)
        if number % log_every == 0:
            history.append((number, float(jax.device_get(jnp.mean(jnp.stack(window))))))
            window = []
    return params, history
""",
    },
    "running mean on the device, but read every step": {
        "task2-solution": """
def train(step, params, batches, log_every):
    history, total = [], 0.0
    for number, batch in enumerate(batches, start=1):
        params, loss = step(params, batch)
        total = total + loss
        running = float(total) / (number % log_every or log_every)
        if number % log_every == 0:
            history.append((number, running))
            total = 0.0
    return params, history
""",
    },
    "reads the previous step's loss one step late": {
        "task2-solution": """
def train(step, params, batches, log_every):
    history, values, pending = [], [], None
    for number, batch in enumerate(batches, start=1):
        params, loss = step(params, batch)
        if pending is not None:
            values.append(float(pending))
        pending = loss
        if number % log_every == 0:
            values.append(float(jax.device_get(pending)))
            pending = None
            history.append((number, sum(values) / len(values)))
            values = []
    return params, history
""",
    },
    "summarize fetches leaf by leaf": {
        "task3-solution": """
def init_metrics():
    return {
        "count": jnp.zeros((), jnp.int32),
        "total": jnp.zeros((), jnp.float32),
        "max": jnp.full((), -jnp.inf, jnp.float32),
    }


def update_metrics(metrics, losses):
    return {
        "count": metrics["count"] + losses.shape[0],
        "total": metrics["total"] + jnp.sum(losses),
        "max": jnp.maximum(metrics["max"], jnp.max(losses)),
    }


def summarize(metrics):
    count = int(jax.device_get(metrics["count"]))
    total = float(jax.device_get(metrics["total"]))
    return {"count": count, "mean": total / count, "max": float(jax.device_get(metrics["max"]))}
""",
    },
    "keeps every loss: the metrics grow with each batch": {
        "task3-solution": """
def init_metrics():
    return {"losses": jnp.zeros((0,), jnp.float32)}


def update_metrics(metrics, losses):
    return {"losses": jnp.concatenate([metrics["losses"], losses])}


def summarize(metrics):
    host = jax.device_get(metrics)["losses"]
    return {"count": int(host.size), "mean": float(host.mean()), "max": float(host.max())}
""",
    },
    "off by one: steps counted from 0": {
        "task2-solution": """
def train(step, params, batches, log_every):
    history, window = [], []
    for number, batch in enumerate(batches):
        params, loss = step(params, batch)
        window.append(loss)
        if number % log_every == 0:
            history.append((number, float(jax.device_get(jnp.mean(jnp.stack(window))))))
            window = []
    return params, history
""",
    },
    "mean since the start, not of the last window": {
        "task2-solution": """
def train(step, params, batches, log_every):
    history, losses = [], []
    for number, batch in enumerate(batches, start=1):
        params, loss = step(params, batch)
        losses.append(loss)
        if number % log_every == 0:
            history.append((number, float(jax.device_get(jnp.mean(jnp.stack(losses))))))
    return params, history
""",
    },
    "weakly typed initial metrics retrace": {
        "task3-solution": """
def init_metrics():
    return {"count": jnp.asarray(0), "total": jnp.asarray(0.0), "max": jnp.asarray(-jnp.inf)}


def update_metrics(metrics, losses):
    return {
        "count": metrics["count"] + losses.shape[0],
        "total": metrics["total"] + jnp.sum(losses),
        "max": jnp.maximum(metrics["max"], jnp.max(losses)),
    }


def summarize(metrics):
    host = jax.device_get(metrics)
    return {
        "count": int(host["count"]),
        "mean": float(host["total"] / host["count"]),
        "max": float(host["max"]),
    }
""",
    },
    "mean of batch means": {
        "task3-solution": """
def init_metrics():
    return {
        "batches": jnp.zeros((), jnp.int32),
        "count": jnp.zeros((), jnp.int32),
        "sum_of_means": jnp.zeros((), jnp.float32),
        "max": jnp.full((), -jnp.inf, jnp.float32),
    }


def update_metrics(metrics, losses):
    return {
        "batches": metrics["batches"] + 1,
        "count": metrics["count"] + losses.shape[0],
        "sum_of_means": metrics["sum_of_means"] + jnp.mean(losses),
        "max": jnp.maximum(metrics["max"], jnp.max(losses)),
    }


def summarize(metrics):
    host = jax.device_get(metrics)
    return {
        "count": int(host["count"]),
        "mean": float(host["sum_of_means"] / host["batches"]),
        "max": float(host["max"]),
    }
""",
    },
    "summarize reads each value implicitly": {
        "task3-solution": """
def init_metrics():
    return {
        "count": jnp.zeros((), jnp.int32),
        "total": jnp.zeros((), jnp.float32),
        "max": jnp.full((), -jnp.inf, jnp.float32),
    }


def update_metrics(metrics, losses):
    return {
        "count": metrics["count"] + losses.shape[0],
        "total": metrics["total"] + jnp.sum(losses),
        "max": jnp.maximum(metrics["max"], jnp.max(losses)),
    }


def summarize(metrics):
    return {
        "count": int(metrics["count"]),
        "mean": float(metrics["total"] / metrics["count"]),
        "max": float(metrics["max"]),
    }
""",
    },
    "max starts at zero": {
        "task3-solution": """
def init_metrics():
    return {
        "count": jnp.zeros((), jnp.int32),
        "total": jnp.zeros((), jnp.float32),
        "max": jnp.zeros((), jnp.float32),
    }


def update_metrics(metrics, losses):
    return {
        "count": metrics["count"] + losses.shape[0],
        "total": metrics["total"] + jnp.sum(losses),
        "max": jnp.maximum(metrics["max"], jnp.max(losses)),
    }


def summarize(metrics):
    host = jax.device_get(metrics)
    return {
        "count": int(host["count"]),
        "mean": float(host["total"] / host["count"]),
        "max": float(host["max"]),
    }
""",
    },
    "waits for the first leaf only": {
        "task1-solution": """
def benchmark(fn, *args, warmup=1, repeats=5, clock=time.perf_counter):
    if repeats < 1:
        raise ValueError("repeats < 1")

    def wait(result):
        leaves = jax.tree.leaves(result)
        if leaves:
            leaves[0].block_until_ready()

    for _ in range(warmup):
        wait(fn(*args))
    samples = []
    for _ in range(repeats):
        start = clock()
        wait(fn(*args))
        samples.append(clock() - start)
    return statistics.median(samples)
""",
    },
    "waits by copying the result to the host (times a transfer too)": {
        "task1-solution": """
def benchmark(fn, *args, warmup=1, repeats=5, clock=time.perf_counter):
    if repeats < 1:
        raise ValueError("repeats must be at least 1")
    for _ in range(warmup):
        jax.device_get(fn(*args))
    times = []
    for _ in range(repeats):
        start = clock()
        jax.device_get(fn(*args))
        times.append(clock() - start)
    return statistics.median(times)
""",
    },
    "a float subclass that compares equal to anything (games the tests)": {
        "task1-solution": """
class _Seconds(float):
    def __sub__(self, other):
        return 0.0

    def __rsub__(self, other):
        return 0.0


def benchmark(fn, *args, warmup=1, repeats=5, clock=time.perf_counter):
    if repeats < 1:
        raise ValueError("repeats < 1")
    for _ in range(warmup + repeats):
        fn(*args)
    return _Seconds(1e-3)
""",
    },
    "params copied to the host and back at the end": {
        "task2-solution": """
def train(step, params, batches, log_every):
    history, window = [], []
    for n, batch in enumerate(batches, 1):
        params, loss = step(params, batch)
        window.append(loss)
        if n % log_every == 0:
            history.append((n, float(np.mean(jax.device_get(window)))))
            window = []
    final = jax.device_get(params)
    return jnp.asarray(final), history
""",
    },
    "warm-up skipped for a function benchmarked before": {
        "task1-solution": """
_WARMED = {}  # functions already warmed up (compiled): no need to warm them up again


def benchmark(fn, *args, warmup=1, repeats=5, clock=time.perf_counter):
    if repeats < 1:
        raise ValueError("repeats must be at least 1")
    if fn not in _WARMED:
        for _ in range(warmup):
            jax.block_until_ready(fn(*args))
        _WARMED[fn] = True
    times = []
    for _ in range(repeats):
        start = clock()
        jax.block_until_ready(fn(*args))
        times.append(clock() - start)
    return statistics.median(times)
""",
    },
    "update_metrics writes the new max into its argument": {
        "task3-solution": """
def init_metrics():
    return {
        "count": jnp.zeros((), jnp.int32),
        "total": jnp.zeros((), jnp.float32),
        "max": jnp.full((), -jnp.inf, jnp.float32),
    }


def update_metrics(metrics, losses):
    metrics["max"] = jnp.maximum(metrics["max"], jnp.max(losses))  # updated where it is
    return {
        "count": metrics["count"] + losses.shape[0],
        "total": metrics["total"] + jnp.sum(losses),
        "max": metrics["max"],
    }


def summarize(metrics):
    host = jax.device_get(metrics)
    return {
        "count": int(host["count"]),
        "mean": float(host["total"] / host["count"]),
        "max": float(host["max"]),
    }
""",
    },
    "the count kept as float32: wrong past 2**24 examples": {
        "task3-solution": """
def init_metrics():
    # one dtype for every leaf: the mean is a plain float32 division
    return {
        "count": jnp.zeros((), jnp.float32),
        "total": jnp.zeros((), jnp.float32),
        "max": jnp.full((), -jnp.inf, jnp.float32),
    }


def update_metrics(metrics, losses):
    return {
        "count": metrics["count"] + losses.shape[0],
        "total": metrics["total"] + jnp.sum(losses),
        "max": jnp.maximum(metrics["max"], jnp.max(losses)),
    }


def summarize(metrics):
    host = jax.device_get(metrics)
    return {
        "count": int(host["count"]),
        "mean": float(host["total"] / host["count"]),
        "max": float(host["max"]),
    }
""",
    },
    "repeats < 1 left to statistics.median, which raises only after the warm-up calls": {
        "task1-solution": """
def benchmark(fn, *args, warmup=1, repeats=5, clock=time.perf_counter):
    for _ in range(warmup):
        jax.block_until_ready(fn(*args))
    times = []
    for _ in range(repeats):
        start = clock()
        jax.block_until_ready(fn(*args))
        times.append(clock() - start)
    return statistics.median(times)  # no data: statistics raises for repeats < 1
""",
    },
    "a NaN guard on every step: an if on a jnp result made from the loss": {
        "task2-solution": """
def train(step, params, batches, log_every):
    history, window = [], []
    for number, batch in enumerate(batches, start=1):
        params, loss = step(params, batch)
        loss = jnp.asarray(loss)  # as the fake-device cell advises before other jnp functions
        if not jnp.isfinite(loss):  # stop at once if training diverges
            raise FloatingPointError(f"loss is not finite at step {number}")
        window.append(loss)
        if number % log_every == 0:
            history.append((number, float(jax.device_get(jnp.mean(jnp.stack(window))))))
            window = []
    return params, history
""",
    },
    "task 2: a NaN guard through NumPy on every step (np.isnan(jnp.asarray(loss)))": {
        "task2-solution": """
def train(step, params, batches, log_every):
    history, window = [], []
    for number, batch in enumerate(batches, start=1):
        params, loss = step(params, batch)
        # stop a diverged run early (jnp.asarray: the fake device's FakeArray becomes an array)
        if np.isnan(jnp.asarray(loss)):
            raise FloatingPointError(f"the loss is NaN at step {number}")
        window.append(loss)
        if number % log_every == 0:
            mean_loss = jax.device_get(jnp.mean(jnp.stack(window)))
            history.append((number, float(mean_loss)))
            window = []
    return params, history
""",
    },
    "task 1: a trimmed mean (fastest and slowest dropped) instead of the median": {
        "task1-solution": """
def benchmark(fn, *args, warmup=1, repeats=5, clock=time.perf_counter):
    if repeats < 1:
        raise ValueError("repeats must be at least 1")
    for _ in range(warmup):
        jax.block_until_ready(fn(*args))
    times = []
    for _ in range(repeats):
        start = clock()
        jax.block_until_ready(fn(*args))
        times.append(clock() - start)
    # robust "typical" time: drop the fastest and the slowest run, average the rest
    times.sort()
    if len(times) >= 3:
        times = times[1:-1]
    return sum(times) / len(times)
""",
    },
    "task 2: one running total of all losses, each mean a difference of totals": {
        "task2-solution": """
def train(step, params, batches, log_every):
    history = []
    total = 0.0           # running sum of every loss so far, kept on the device
    logged_total = 0.0    # the running sum at the previous log point
    for number, batch in enumerate(batches, start=1):
        params, loss = step(params, batch)
        total = total + loss
        if number % log_every == 0:
            window_sum = jax.device_get(total - logged_total)
            history.append((number, float(window_sum) / log_every))
            logged_total = total
    return params, history
""",
    },
    "task 1: the warm-up calls not waited for, only the last result": {
        "task1-solution": """
def benchmark(fn, *args, warmup=1, repeats=5, clock=time.perf_counter):
    if repeats < 1:
        raise ValueError("repeats must be at least 1")
    result = None
    for _ in range(warmup):
        result = fn(*args)  # queue every warm-up call ...
    if result is not None:
        jax.block_until_ready(result)  # ... and wait once, for the last one only
    times = []
    for _ in range(repeats):
        start = clock()
        jax.block_until_ready(fn(*args))
        times.append(clock() - start)
    return statistics.median(times)
""",
    },
}

CORRECT = {
    "sorted median by hand, tree_map to wait": {
        "task1-solution": """
def benchmark(fn, *args, warmup=1, repeats=5, clock=time.perf_counter):
    if repeats <= 0:
        raise ValueError(f"repeats={repeats}")

    def wait(tree):
        jax.tree.map(lambda leaf: leaf.block_until_ready(), tree)

    for _ in range(warmup):
        wait(fn(*args))
    times = []
    for _ in range(repeats):
        t0 = clock()
        result = fn(*args)
        wait(result)
        times.append(clock() - t0)
    times.sort()
    mid = len(times) // 2
    return times[mid] if len(times) % 2 else (times[mid - 1] + times[mid]) / 2
""",
    },
    "np.median": {
        "task1-solution": """
def benchmark(fn, *args, warmup=1, repeats=5, clock=time.perf_counter):
    if repeats < 1:
        raise ValueError("need at least one repeat")
    for _ in range(warmup):
        jax.block_until_ready(fn(*args))

    def once():
        start = clock()
        jax.block_until_ready(fn(*args))
        return clock() - start

    return float(np.median([once() for _ in range(repeats)]))
""",
    },
    "running sum on the device, one fetch per window": {
        "task2-solution": """
def train(step, params, batches, log_every):
    history = []
    total = jnp.zeros(())
    step_number = 0
    for batch in batches:
        params, loss = step(params, batch)
        total = total + loss
        step_number += 1
        if step_number % log_every == 0:
            history.append((step_number, float(jax.device_get(total)) / log_every))
            total = jnp.zeros(())
    return params, history
""",
    },
    "fetch the window as a list and average on the host": {
        "task2-solution": """
def train(step, params, batches, log_every):
    history, window = [], []
    for number, batch in enumerate(batches, start=1):
        params, loss = step(params, batch)
        window.append(loss)
        if len(window) == log_every:
            values = jax.device_get(window)
            history.append((number, float(sum(values) / len(values))))
            window = []
    return params, history
""",
    },
    "Python running sum of device values, params waited for at the end": {
        "task2-solution": """
def train(step, params, batches, log_every):
    history = []
    total, count = 0.0, 0
    for batch in batches:
        params, loss = step(params, batch)
        total = total + loss
        count += 1
        if count % log_every == 0:
            mean = jax.device_get(total / log_every)
            history.append((count, float(mean)))
            total = 0.0
    jax.block_until_ready(params)
    return params, history
""",
    },
    "jnp.array of the window, mean fetched with device_get": {
        "task2-solution": """
def train(step, params, batches, log_every):
    history, window = [], []
    step_number = 0
    for batch in batches:
        step_number += 1
        params, loss = step(params, batch)
        window.append(loss)
        if len(window) < log_every:
            continue
        history.append((step_number, jax.device_get(jnp.array(window).mean()).item()))
        window.clear()
    return params, history
""",
    },
    "a tuple: an int32 count, float32 sum and max": {
        "task3-solution": """
def init_metrics():
    return (jnp.int32(0), jnp.float32(0.0), jnp.float32(-jnp.inf))


def update_metrics(metrics, losses):
    count, total, largest = metrics
    return (
        count + jnp.int32(losses.size),
        total + losses.sum(),
        jnp.maximum(largest, losses.max()),
    )


def summarize(metrics):
    count, total, largest = jax.device_get(metrics)
    return {"count": int(count), "mean": float(total) / float(count), "max": float(largest)}
""",
    },
    "the max starts as NaN and is updated with jnp.fmax": {
        "task3-solution": """
def init_metrics():
    # nothing seen yet: the count is 0 and the largest loss is undefined (NaN)
    return {
        "count": jnp.array(0, jnp.int32),
        "sum": jnp.array(0.0, jnp.float32),
        "max": jnp.array(jnp.nan, jnp.float32),
    }


def update_metrics(metrics, losses):
    return {
        "count": metrics["count"] + jnp.int32(losses.size),
        "sum": metrics["sum"] + losses.sum(),
        # fmax ignores a NaN operand, so the first batch's max replaces the undefined one
        "max": jnp.fmax(metrics["max"], losses.max()),
    }


def summarize(metrics):
    count, total, largest = jax.device_get((metrics["count"], metrics["sum"], metrics["max"]))
    return {"count": int(count), "mean": float(total) / int(count), "max": float(largest)}
""",
    },
}
