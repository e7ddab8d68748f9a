"""Wrong-but-plausible and alternative-correct answers for solutions/11_profiling_performance."""

_TOP_OPERATION_HEAD = """
def top_operation(log_dir):
    (path,) = Path(log_dir).rglob("*.xplane.pb")
    profile = jax.profiler.ProfileData.from_file(str(path))
"""

_SCALED_GRAD_OK = """
def scaled_grad(loss_fn, params, batch, scale):
    params16 = jax.tree.map(lambda a: a.astype(jnp.float16), params)
    batch16 = jax.tree.map(lambda a: a.astype(jnp.float16), batch)
    grads16 = jax.grad(lambda p: scale * loss_fn(p, batch16))(params16)
    grads = jax.tree.map(lambda g: g.astype(jnp.float32) / scale, grads16)
    finite = all(bool(jnp.all(jnp.isfinite(g))) for g in jax.tree.leaves(grads))
    return grads, finite
"""

_UPDATE_SCALE_OK = """

def update_scale(scale, finite, good_steps, growth_interval=200):
    if not finite:
        return scale / 2, 0
    good_steps += 1
    if good_steps >= growth_interval:
        return scale * 2, 0
    return scale, good_steps
"""

# objects an answer could return to lie to a test that compares with == or abs(x - y)
_LIARS = """
class _Any:
    def __eq__(self, other):
        return True

    def __ne__(self, other):
        return False

    __hash__ = object.__hash__

    def __iter__(self):
        return iter((_Any(), _Any()))


class _MetaF(type):  # type(_F(0.5)) == float
    def __eq__(cls, other):
        return True

    __hash__ = type.__hash__


class _F(float, metaclass=_MetaF):
    def __sub__(self, other):
        return 0.0

    def __rsub__(self, other):
        return 0.0

"""

WRONG = {
    # --- task 1: the top operation of a trace ---
    "longest single event instead of the total per operation": {
        "task1-solution": _TOP_OPERATION_HEAD
        + """
    longest, total = {}, 0.0
    for plane in profile.planes:
        for line in plane.lines:
            for event in line.events:
                stats = dict(event.stats)
                if "hlo_op" in stats:
                    op = stats["hlo_op"]
                    longest[op] = max(longest.get(op, 0.0), event.duration_ns)
                    total += event.duration_ns
    name = max(longest, key=longest.get)
    return str(name), float(longest[name] / total)
""",
    },
    "the operation that ran most often": {
        "task1-solution": _TOP_OPERATION_HEAD
        + """
    counts, times = {}, {}
    for plane in profile.planes:
        for line in plane.lines:
            for event in line.events:
                stats = dict(event.stats)
                if "hlo_op" in stats:
                    op = stats["hlo_op"]
                    counts[op] = counts.get(op, 0) + 1
                    times[op] = times.get(op, 0.0) + event.duration_ns
    name = max(counts, key=counts.get)
    return str(name), float(times[name] / sum(times.values()))
""",
    },
    "groups by the event's own name (the kernel), not the hlo_op stat": {
        "task1-solution": _TOP_OPERATION_HEAD
        + """
    totals = {}
    device = [p for p in profile.planes if p.name.startswith("/device:")]
    for plane in device or list(profile.planes):
        for line in plane.lines:
            for event in line.events:
                if "hlo_op" in dict(event.stats):
                    totals[event.name] = totals.get(event.name, 0.0) + event.duration_ns
    name = max(totals, key=totals.get)
    return str(name), float(totals[name] / sum(totals.values()))
""",
    },
    "counts every plane, the host's too, on a GPU trace": {
        "task1-solution": _TOP_OPERATION_HEAD
        + """
    totals = {}
    for plane in profile.planes:
        for line in plane.lines:
            for event in line.events:
                stats = dict(event.stats)
                if "hlo_op" in stats:
                    totals[stats["hlo_op"]] = totals.get(stats["hlo_op"], 0.0) + event.duration_ns
    name = max(totals, key=totals.get)
    return str(name), float(totals[name] / sum(totals.values()))
""",
    },
    "only /device: planes, so a CPU trace has no operations": {
        "task1-solution": _TOP_OPERATION_HEAD
        + """
    totals = {}
    for plane in profile.planes:
        if not plane.name.startswith("/device:"):
            continue
        for line in plane.lines:
            for event in line.events:
                stats = dict(event.stats)
                if "hlo_op" in stats:
                    totals[stats["hlo_op"]] = totals.get(stats["hlo_op"], 0.0) + event.duration_ns
    name = max(totals, key=totals.get)
    return str(name), float(totals[name] / sum(totals.values()))
""",
    },
    "any /device: plane makes it a GPU trace, even one that ran no XLA operation": {
        "task1-solution": _TOP_OPERATION_HEAD
        + """
    device = [p for p in profile.planes if p.name.startswith("/device:")]
    totals = {}
    for plane in device or list(profile.planes):
        for line in plane.lines:
            for event in line.events:
                stats = dict(event.stats)
                if "hlo_op" in stats:
                    totals[stats["hlo_op"]] = totals.get(stats["hlo_op"], 0.0) + event.duration_ns
    name = max(totals, key=totals.get)
    return str(name), float(totals[name] / sum(totals.values()))
""",
    },
    "share of the trace's span instead of the operations' time": {
        "task1-solution": _TOP_OPERATION_HEAD
        + """
    totals, first, last = {}, None, None
    device = [p for p in profile.planes if p.name.startswith("/device:")]
    for plane in device or list(profile.planes):
        for line in plane.lines:
            for event in line.events:
                stats = dict(event.stats)
                if "hlo_op" in stats:
                    totals[stats["hlo_op"]] = totals.get(stats["hlo_op"], 0.0) + event.duration_ns
                    first = event.start_ns if first is None else min(first, event.start_ns)
                    last = event.end_ns if last is None else max(last, event.end_ns)
    name = max(totals, key=totals.get)
    return str(name), float(totals[name] / (last - first))
""",
    },
    # --- task 2: rooflines ---
    "intensity as bytes per FLOP": {
        "task2-solution": """
def roofline_from_cost(cost, peak_flops, bandwidth):
    if isinstance(cost, (list, tuple)):
        cost = cost[0]
    flops, nbytes = float(cost["flops"]), float(cost["bytes accessed"])
    intensity = nbytes / flops
    return {
        "flops": flops,
        "bytes": nbytes,
        "intensity": intensity,
        "bound": "compute" if intensity >= peak_flops / bandwidth else "memory",
        "seconds": max(flops / peak_flops, nbytes / bandwidth),
    }


def roofline(fn, args, peak_flops, bandwidth):
    cost = jax.jit(fn).lower(*args).compile().cost_analysis()
    return roofline_from_cost(cost, peak_flops, bandwidth)
""",
    },
    "the times added instead of the larger one": {
        "task2-solution": """
def roofline_from_cost(cost, peak_flops, bandwidth):
    if isinstance(cost, (list, tuple)):
        cost = cost[0]
    flops, nbytes = float(cost["flops"]), float(cost["bytes accessed"])
    intensity = flops / nbytes
    return {
        "flops": flops,
        "bytes": nbytes,
        "intensity": intensity,
        "bound": "compute" if intensity >= peak_flops / bandwidth else "memory",
        "seconds": flops / peak_flops + nbytes / bandwidth,
    }


def roofline(fn, args, peak_flops, bandwidth):
    cost = jax.jit(fn).lower(*args).compile().cost_analysis()
    return roofline_from_cost(cost, peak_flops, bandwidth)
""",
    },
    "ridge point upside down (bandwidth / peak)": {
        "task2-solution": """
def roofline_from_cost(cost, peak_flops, bandwidth):
    if isinstance(cost, (list, tuple)):
        cost = cost[0]
    flops, nbytes = float(cost["flops"]), float(cost["bytes accessed"])
    intensity = flops / nbytes
    return {
        "flops": flops,
        "bytes": nbytes,
        "intensity": intensity,
        "bound": "compute" if intensity >= bandwidth / peak_flops else "memory",
        "seconds": max(flops / peak_flops, nbytes / bandwidth),
    }


def roofline(fn, args, peak_flops, bandwidth):
    cost = jax.jit(fn).lower(*args).compile().cost_analysis()
    return roofline_from_cost(cost, peak_flops, bandwidth)
""",
    },
    "compute-bound only strictly above the ridge point": {
        "task2-solution": """
def roofline_from_cost(cost, peak_flops, bandwidth):
    if isinstance(cost, (list, tuple)):
        cost = cost[0]
    flops, nbytes = float(cost["flops"]), float(cost["bytes accessed"])
    intensity = flops / nbytes
    return {
        "flops": flops,
        "bytes": nbytes,
        "intensity": intensity,
        "bound": "compute" if intensity > peak_flops / bandwidth else "memory",
        "seconds": max(flops / peak_flops, nbytes / bandwidth),
    }


def roofline(fn, args, peak_flops, bandwidth):
    cost = jax.jit(fn).lower(*args).compile().cost_analysis()
    return roofline_from_cost(cost, peak_flops, bandwidth)
""",
    },
    "only the dict form of cost_analysis()": {
        "task2-solution": """
def roofline_from_cost(cost, peak_flops, bandwidth):
    flops, nbytes = float(cost["flops"]), float(cost["bytes accessed"])
    intensity = flops / nbytes
    return {
        "flops": flops,
        "bytes": nbytes,
        "intensity": intensity,
        "bound": "compute" if intensity >= peak_flops / bandwidth else "memory",
        "seconds": max(flops / peak_flops, nbytes / bandwidth),
    }


def roofline(fn, args, peak_flops, bandwidth):
    cost = jax.jit(fn).lower(*args).compile().cost_analysis()
    return roofline_from_cost(cost, peak_flops, bandwidth)
""",
    },
    "bytes counted as the arguments' size, not the program's traffic": {
        "task2-solution": """
def roofline_from_cost(cost, peak_flops, bandwidth):
    if isinstance(cost, (list, tuple)):
        cost = cost[0]
    flops, nbytes = float(cost["flops"]), float(cost["bytes accessed"])
    intensity = flops / nbytes
    return {
        "flops": flops,
        "bytes": nbytes,
        "intensity": intensity,
        "bound": "compute" if intensity >= peak_flops / bandwidth else "memory",
        "seconds": max(flops / peak_flops, nbytes / bandwidth),
    }


def roofline(fn, args, peak_flops, bandwidth):
    cost = jax.jit(fn).lower(*args).compile().cost_analysis()
    cost = dict(cost[0] if isinstance(cost, (list, tuple)) else cost)
    cost["bytes accessed"] = float(sum(jnp.asarray(a).nbytes for a in args))
    return roofline_from_cost(cost, peak_flops, bandwidth)
""",
    },
    # --- task 3: float16 and dynamic loss scaling ---
    "computes in float32: nothing to scale, nothing ever overflows": {
        "task3-solution": """
def scaled_grad(loss_fn, params, batch, scale):
    grads = jax.grad(lambda p: scale * loss_fn(p, batch))(params)
    grads = jax.tree.map(lambda g: g / scale, grads)
    finite = all(bool(jnp.all(jnp.isfinite(g))) for g in jax.tree.leaves(grads))
    return grads, finite


def update_scale(scale, finite, good_steps, growth_interval=200):
    if not finite:
        return scale / 2, 0
    good_steps += 1
    if good_steps >= growth_interval:
        return scale * 2, 0
    return scale, good_steps
""",
    },
    "forgets to unscale the gradient": {
        "task3-solution": """
def scaled_grad(loss_fn, params, batch, scale):
    params16 = jax.tree.map(lambda a: a.astype(jnp.float16), params)
    batch16 = jax.tree.map(lambda a: a.astype(jnp.float16), batch)
    grads16 = jax.grad(lambda p: scale * loss_fn(p, batch16))(params16)
    grads = jax.tree.map(lambda g: g.astype(jnp.float32), grads16)
    finite = all(bool(jnp.all(jnp.isfinite(g))) for g in jax.tree.leaves(grads))
    return grads, finite


def update_scale(scale, finite, good_steps, growth_interval=200):
    if not finite:
        return scale / 2, 0
    good_steps += 1
    if good_steps >= growth_interval:
        return scale * 2, 0
    return scale, good_steps
""",
    },
    "unscales in float16, where the small gradient underflows again": {
        "task3-solution": """
def scaled_grad(loss_fn, params, batch, scale):
    params16 = jax.tree.map(lambda a: a.astype(jnp.float16), params)
    batch16 = jax.tree.map(lambda a: a.astype(jnp.float16), batch)
    grads16 = jax.grad(lambda p: scale * loss_fn(p, batch16))(params16)
    grads = jax.tree.map(lambda g: (g / scale).astype(jnp.float32), grads16)
    finite = all(bool(jnp.all(jnp.isfinite(g))) for g in jax.tree.leaves(grads))
    return grads, finite


def update_scale(scale, finite, good_steps, growth_interval=200):
    if not finite:
        return scale / 2, 0
    good_steps += 1
    if good_steps >= growth_interval:
        return scale * 2, 0
    return scale, good_steps
""",
    },
    "no loss scaling at all (scale ignored)": {
        "task3-solution": """
def scaled_grad(loss_fn, params, batch, scale):
    params16 = jax.tree.map(lambda a: a.astype(jnp.float16), params)
    batch16 = jax.tree.map(lambda a: a.astype(jnp.float16), batch)
    grads16 = jax.grad(lambda p: loss_fn(p, batch16))(params16)
    grads = jax.tree.map(lambda g: g.astype(jnp.float32), grads16)
    finite = all(bool(jnp.all(jnp.isfinite(g))) for g in jax.tree.leaves(grads))
    return grads, finite


def update_scale(scale, finite, good_steps, growth_interval=200):
    if not finite:
        return scale / 2, 0
    good_steps += 1
    if good_steps >= growth_interval:
        return scale * 2, 0
    return scale, good_steps
""",
    },
    "overflow judged from the scaled loss, not the gradient": {
        "task3-solution": """
def scaled_grad(loss_fn, params, batch, scale):
    params16 = jax.tree.map(lambda a: a.astype(jnp.float16), params)
    batch16 = jax.tree.map(lambda a: a.astype(jnp.float16), batch)
    loss, grads16 = jax.value_and_grad(lambda p: scale * loss_fn(p, batch16))(params16)
    grads = jax.tree.map(lambda g: g.astype(jnp.float32) / scale, grads16)
    return grads, bool(jnp.isfinite(loss))
"""
        + _UPDATE_SCALE_OK,
    },
    "overflow predicted from the scale (above float16's maximum)": {
        "task3-solution": """
def scaled_grad(loss_fn, params, batch, scale):
    params16 = jax.tree.map(lambda a: a.astype(jnp.float16), params)
    batch16 = jax.tree.map(lambda a: a.astype(jnp.float16), batch)
    grads16 = jax.grad(lambda p: scale * loss_fn(p, batch16))(params16)
    grads = jax.tree.map(lambda g: g.astype(jnp.float32) / scale, grads16)
    return grads, bool(scale <= float(jnp.finfo(jnp.float16).max))
"""
        + _UPDATE_SCALE_OK,
    },
    "the scale grows after every good step": {
        "task3-solution": _SCALED_GRAD_OK
        + """

def update_scale(scale, finite, good_steps, growth_interval=200):
    if not finite:
        return scale / 2, 0
    return scale * 2, good_steps + 1
""",
    },
    "an overflow halves the scale but keeps the count of good steps": {
        "task3-solution": _SCALED_GRAD_OK
        + """

def update_scale(scale, finite, good_steps, growth_interval=200):
    if not finite:
        return scale / 2, good_steps
    good_steps += 1
    if good_steps >= growth_interval:
        return scale * 2, 0
    return scale, good_steps
""",
    },
    # --- task 4: the slow loop ---
    "still jits a new partial every step": {
        "task4-solution": """
def fast_fit(loss_fn, params, batches, lrs, log_every):
    best = jnp.asarray(np.inf, jnp.float32)
    history = []
    for step, ((x, y), lr) in enumerate(zip(batches, lrs, strict=True), start=1):
        step_fn = jax.jit(functools.partial(sgd, loss_fn, lr=lr))
        params, loss = step_fn(params, np.asarray(x, np.float32), np.asarray(y, np.float32))
        best = jnp.minimum(best, loss)
        if step % log_every == 0:
            history.append((step, float(loss)))
    return params, history, float(best)
""",
    },
    "the learning rate as a static argument": {
        "task4-solution": """
def fast_fit(loss_fn, params, batches, lrs, log_every):
    step_fn = jax.jit(functools.partial(sgd, loss_fn), static_argnames="lr")
    best = jnp.asarray(np.inf, jnp.float32)
    history = []
    for step, ((x, y), lr) in enumerate(zip(batches, lrs, strict=True), start=1):
        params, loss = step_fn(params, np.asarray(x, np.float32), np.asarray(y, np.float32), lr=lr)
        best = jnp.minimum(best, loss)
        if step % log_every == 0:
            history.append((step, float(loss)))
    return params, history, float(best)
""",
    },
    "keeps the float64 batches": {
        "task4-solution": """
def fast_fit(loss_fn, params, batches, lrs, log_every):
    @jax.jit
    def step_fn(params, x, y, lr, best):
        params, loss = sgd(loss_fn, params, x, y, lr)
        return params, loss, jnp.minimum(best, loss)

    best = jnp.asarray(np.inf, jnp.float32)
    history = []
    for step, ((x, y), lr) in enumerate(zip(batches, lrs, strict=True), start=1):
        params, loss, best = step_fn(params, x, y, np.float32(lr), best)
        if step % log_every == 0:
            history.append((step, float(loss)))
    return params, history, float(best)
""",
    },
    "casts the inputs to float32 but forgets the targets": {
        "task4-solution": """
def fast_fit(loss_fn, params, batches, lrs, log_every):
    @jax.jit
    def step_fn(params, x, y, lr, best):
        params, loss = sgd(loss_fn, params, x, y, lr)
        return params, loss, jnp.minimum(best, loss)

    best = jnp.asarray(np.inf, jnp.float32)
    history = []
    for step, ((x, y), lr) in enumerate(zip(batches, lrs, strict=True), start=1):
        params, loss, best = step_fn(params, x.astype(np.float32), y, np.float32(lr), best)
        if step % log_every == 0:
            history.append((step, float(loss)))
    return params, history, float(best)
""",
    },
    "still compares the loss on the host every step": {
        "task4-solution": """
def fast_fit(loss_fn, params, batches, lrs, log_every):
    step_fn = jax.jit(functools.partial(sgd, loss_fn))
    best, history = float("inf"), []
    for step, ((x, y), lr) in enumerate(zip(batches, lrs, strict=True), start=1):
        x, y = np.asarray(x, np.float32), np.asarray(y, np.float32)
        params, loss = step_fn(params, x, y, np.float32(lr))
        if loss < best:
            best = float(loss)
        if step % log_every == 0:
            history.append((step, float(loss)))
    return params, history, best
""",
    },
    "fetches every step's loss at the end, one read per step": {
        "task4-solution": """
def fast_fit(loss_fn, params, batches, lrs, log_every):
    step_fn = jax.jit(functools.partial(sgd, loss_fn))
    losses = []
    for (x, y), lr in zip(batches, lrs, strict=True):
        x, y = np.asarray(x, np.float32), np.asarray(y, np.float32)
        params, loss = step_fn(params, x, y, np.float32(lr))
        losses.append(loss)
    values = [float(v) for v in jax.device_get(losses)]
    history = [(s, values[s - 1]) for s in range(log_every, len(values) + 1, log_every)]
    return params, history, min(values)
""",
    },
    "params promoted to float64 for the updates, cast back at the end": {
        "task4-solution": """
def fast_fit(loss_fn, params, batches, lrs, log_every):
    @jax.jit
    def step(p, x, y, lr, best):
        loss, g = jax.value_and_grad(loss_fn)(p, x, y)
        return jax.tree.map(lambda a, b: a - lr * b, p, g), loss, jnp.minimum(best, loss)

    wide = jax.tree.map(lambda a: jnp.asarray(a, jnp.float64), params)
    best, history = jnp.asarray(np.inf, jnp.float64), []
    for i, ((x, y), lr) in enumerate(zip(batches, lrs, strict=True), start=1):
        x, y = np.asarray(x, np.float32), np.asarray(y, np.float32)
        wide, loss, best = step(wide, x, y, np.float64(lr), best)
        if i % log_every == 0:
            history.append((i, float(loss)))
    return jax.tree.map(lambda a: a.astype(jnp.float32), wide), history, float(best)
""",
    },
    "only /device:GPU planes taken for device planes": {
        "task1-solution": """
def top_operation(log_dir):
    (path,) = Path(log_dir).rglob("*.xplane.pb")
    profile = jax.profiler.ProfileData.from_file(str(path))
    per_plane = {}
    for plane in profile.planes:
        for line in plane.lines:
            for event in line.events:
                stats = dict(event.stats)
                if "hlo_op" in stats:
                    event_time = (stats["hlo_op"], event.duration_ns)
                    per_plane.setdefault(plane.name, []).append(event_time)
    accelerators = [name for name in per_plane if name.startswith("/device:GPU")]  # the GPUs
    totals = {}
    for plane in accelerators or list(per_plane):
        for op, duration in per_plane[plane]:
            totals[op] = totals.get(op, 0.0) + duration
    name = max(totals, key=totals.get)
    return str(name), float(totals[name] / sum(totals.values()))
""",
    },
    "the scale never halved below 1": {
        "task3-solution": """
def scaled_grad(loss_fn, params, batch, scale):
    params16 = jax.tree.map(lambda a: a.astype(jnp.float16), params)
    batch16 = jax.tree.map(lambda a: a.astype(jnp.float16), batch)
    grads16 = jax.grad(lambda p: scale * loss_fn(p, batch16))(params16)
    grads = jax.tree.map(lambda g: g.astype(jnp.float32) / scale, grads16)
    finite = all(bool(jnp.all(jnp.isfinite(g))) for g in jax.tree.leaves(grads))
    return grads, finite


MIN_SCALE = 1.0  # never scale the loss below 1


def update_scale(scale, finite, good_steps, growth_interval=200):
    if not finite:
        return max(scale / 2, MIN_SCALE), 0
    good_steps += 1
    if good_steps >= growth_interval:
        return scale * 2, 0
    return scale, good_steps
""",
    },
    "a CPU trace read from the /host:CPU plane only": {
        "task1-solution": """
def top_operation(log_dir):
    (path,) = Path(log_dir).rglob("*.xplane.pb")
    profile = jax.profiler.ProfileData.from_file(str(path))

    def op_times(planes):
        totals = {}
        for plane in planes:
            for line in plane.lines:
                for event in line.events:
                    stats = dict(event.stats)
                    if "hlo_op" in stats:
                        totals[stats["hlo_op"]] = totals.get(stats["hlo_op"], 0) + event.duration_ns
        return totals

    devices = [p for p in profile.planes if p.name.startswith("/device:")]
    totals = op_times(devices)
    if not totals:  # a CPU trace: XLA:CPU runs the operations on the host's plane
        totals = op_times([profile.find_plane_with_name("/host:CPU")])
    name = max(totals, key=totals.get)
    return str(name), float(totals[name] / sum(totals.values()))
""",
    },
    "finite judged from a float16 sum of the scaled gradients": {
        "task3-solution": """
def scaled_grad(loss_fn, params, batch, scale):
    params16 = jax.tree.map(lambda a: a.astype(jnp.float16), params)
    batch16 = jax.tree.map(lambda a: a.astype(jnp.float16), batch)
    grads16 = jax.grad(lambda p: scale * loss_fn(p, batch16))(params16)
    # one cheap check: an inf or a nan anywhere makes the sum inf or nan
    total = sum(jnp.sum(g) for g in jax.tree.leaves(grads16))
    finite = bool(jnp.isfinite(total))
    grads = jax.tree.map(lambda g: g.astype(jnp.float32) / scale, grads16)
    return grads, finite


def update_scale(scale, finite, good_steps, growth_interval=200):
    if not finite:
        return scale / 2, 0
    good_steps += 1
    if good_steps >= growth_interval:
        return scale * 2, 0
    return scale, good_steps
""",
    },
    "the first /device: plane alone decides whether it is a device trace": {
        "task1-solution": """
def top_operation(log_dir):
    (path,) = Path(log_dir).rglob("*.xplane.pb")
    profile = jax.profiler.ProfileData.from_file(str(path))

    def op_times(planes):
        totals = {}
        for plane in planes:
            for line in plane.lines:
                for event in line.events:
                    stats = dict(event.stats)
                    if "hlo_op" in stats:
                        totals[stats["hlo_op"]] = totals.get(stats["hlo_op"], 0) + event.duration_ns
        return totals

    devices = [p for p in profile.planes if p.name.startswith("/device:")]
    # a GPU trace when the (first) device ran XLA operations; then every device counts
    if devices and op_times(devices[:1]):
        totals = op_times(devices)
    else:
        totals = op_times(profile.planes)
    name = max(totals, key=totals.get)
    return str(name), float(totals[name] / sum(totals.values()))
""",
    },
    "task 2: roofline's cost cached by function, whatever the arguments": {
        "task2-solution": """
def roofline_from_cost(cost, peak_flops, bandwidth):
    if isinstance(cost, (list, tuple)):
        cost = cost[0]
    flops, nbytes = float(cost["flops"]), float(cost["bytes accessed"])
    intensity = flops / nbytes
    return {
        "flops": flops,
        "bytes": nbytes,
        "intensity": intensity,
        "bound": "compute" if intensity >= peak_flops / bandwidth else "memory",
        "seconds": max(flops / peak_flops, nbytes / bandwidth),
    }


_costs = {}  # one compile per function: the same function is classified on several machines


def roofline(fn, args, peak_flops, bandwidth):
    if fn not in _costs:
        _costs[fn] = jax.jit(fn).lower(*args).compile().cost_analysis()
    return roofline_from_cost(_costs[fn], peak_flops, bandwidth)
""",
    },
    "task 3: finite judged from the first gradient leaf only": {
        "task3-solution": """
def scaled_grad(loss_fn, params, batch, scale):
    params16 = jax.tree.map(lambda a: a.astype(jnp.float16), params)
    batch16 = jax.tree.map(lambda a: a.astype(jnp.float16), batch)
    grads16 = jax.grad(lambda p: scale * loss_fn(p, batch16))(params16)
    grads = jax.tree.map(lambda g: g.astype(jnp.float32) / scale, grads16)
    first = jax.tree.leaves(grads)[0]
    finite = bool(jnp.all(jnp.isfinite(first)))
    return grads, finite


def update_scale(scale, finite, good_steps, growth_interval=200):
    if not finite:
        return scale / 2, 0
    good_steps += 1
    if good_steps >= growth_interval:
        return scale * 2, 0
    return scale, good_steps
""",
    },
    "task 4: the loss read with np.asarray at every step, best kept on the host": {
        "task4-solution": """
def fast_fit(loss_fn, params, batches, lrs, log_every):
    @jax.jit
    def step_fn(params, x, y, lr):
        return sgd(loss_fn, params, x, y, lr)

    best, history = float("inf"), []
    for step, ((x, y), lr) in enumerate(zip(batches, lrs, strict=True), start=1):
        x, y = np.asarray(x, np.float32), np.asarray(y, np.float32)
        params, loss = step_fn(params, x, y, np.float32(lr))
        value = float(np.asarray(loss))  # a host copy of the loss at every step
        best = min(best, value)
        if step % log_every == 0:
            history.append((step, value))
    return params, history, best
""",
    },
    "task 1: overlapping events of an operation merged (busy time, not the sum of durations)": {
        "task1-solution": """
def top_operation(log_dir):
    # device time as busy time: overlapping events of one operation on one plane count once
    (path,) = Path(log_dir).rglob("*.xplane.pb")
    profile = jax.profiler.ProfileData.from_file(str(path))
    per_plane = {}
    for plane in profile.planes:
        for line in plane.lines:
            for event in line.events:
                stats = dict(event.stats)
                if "hlo_op" in stats:
                    per_plane.setdefault(plane.name, {}).setdefault(stats["hlo_op"], []).append(
                        (event.start_ns, event.start_ns + event.duration_ns)
                    )
    device = [name for name in per_plane if name.startswith("/device:")]
    planes = device or list(per_plane)
    totals = {}
    for plane in planes:
        for op, spans in per_plane[plane].items():
            busy, end = 0.0, -float("inf")
            for a, b in sorted(spans):
                if b <= end:
                    continue
                busy += b - max(a, end)
                end = b
            totals[op] = totals.get(op, 0.0) + busy
    name = max(totals, key=totals.get)
    return str(name), float(totals[name] / sum(totals.values()))
""",
    },
    # --- answers that return objects built to lie to the tests' comparisons ---
    "returns a str-like name equal to anything and a float whose differences are 0": {
        "task1-solution": _LIARS
        + """
def top_operation(log_dir):
    return (_Any(), _F(0.5))
""",
    },
    "returns one fixed dict: floats whose differences are 0, a bound equal to anything": {
        "task2-solution": _LIARS
        + """
def roofline_from_cost(cost, peak_flops, bandwidth):
    keys = ("flops", "bytes", "intensity", "seconds")
    return {**{k: _F(1.0) for k in keys}, "bound": _Any()}


def roofline(fn, args, peak_flops, bandwidth):
    return roofline_from_cost(None, peak_flops, bandwidth)
""",
    },
    "update_scale returns an object equal to anything (it unpacks into two more)": {
        "task3-solution": _LIARS
        + _SCALED_GRAD_OK
        + """

def update_scale(scale, finite, good_steps, growth_interval=200):
    return _Any()
""",
    },
}

CORRECT = {
    "task 1 with defaultdict and the serialized bytes": {
        "task1-solution": """
import collections


def top_operation(log_dir):
    files = sorted(Path(log_dir).glob("**/*.xplane.pb"))
    assert len(files) == 1, files
    profile = jax.profiler.ProfileData.from_serialized_xspace(files[0].read_bytes())
    device_time = collections.defaultdict(float)
    host_time = collections.defaultdict(float)
    for plane in profile.planes:
        target = device_time if plane.name.startswith("/device:") else host_time
        for line in plane.lines:
            for event in line.events:
                op = dict(event.stats).get("hlo_op")
                if op is not None:
                    target[op] += event.duration_ns
    if not device_time:
        times = host_time
    else:
        times = device_time
    best = max(times.items(), key=lambda item: item[1])
    return best[0], best[1] / sum(times.values())
""",
    },
    "task 2 written with a ridge variable and a list check first": {
        "task2-solution": """
def roofline_from_cost(cost, peak_flops, bandwidth):
    entry = cost[0] if isinstance(cost, list) else cost
    flops = float(entry["flops"])
    moved = float(entry["bytes accessed"])
    ridge = peak_flops / bandwidth
    intensity = flops / moved
    compute_time, memory_time = flops / peak_flops, moved / bandwidth
    return dict(
        flops=flops,
        bytes=moved,
        intensity=intensity,
        bound="memory" if intensity < ridge else "compute",
        seconds=compute_time if compute_time > memory_time else memory_time,
    )


def roofline(fn, args, peak_flops, bandwidth):
    lowered = jax.jit(fn).lower(*args)
    return roofline_from_cost(lowered.compile().cost_analysis(), peak_flops, bandwidth)
""",
    },
    "task 3 with a jitted gradient and a while-free state machine": {
        "task3-solution": """
def scaled_grad(loss_fn, params, batch, scale):
    half = lambda tree: jax.tree.map(lambda a: jnp.asarray(a, jnp.float16), tree)  # noqa: E731

    @jax.jit
    def scaled(p16, b16):
        return jax.grad(lambda p: loss_fn(p, b16) * jnp.float16(scale))(p16)

    grads16 = scaled(half(params), half(batch))
    grads = jax.tree.map(lambda g: jnp.asarray(g, jnp.float32) / jnp.float32(scale), grads16)
    finite = bool(jnp.all(jnp.array([jnp.isfinite(g).all() for g in jax.tree.leaves(grads)])))
    return grads, finite


def update_scale(scale, finite, good_steps, growth_interval=200):
    good_steps = good_steps + 1 if finite else 0
    scale = scale if finite else scale * 0.5
    if good_steps == growth_interval:
        scale, good_steps = scale * 2.0, 0
    return scale, good_steps
""",
    },
    "task 4 with losses stacked on the device and one read per log point": {
        "task4-solution": """
def fast_fit(loss_fn, params, batches, lrs, log_every):
    @jax.jit
    def step_fn(params, x, y, lr):
        loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
        return jax.tree.map(lambda p, g: p - lr * g, params, grads), loss

    losses, history = [], []
    for step, ((x, y), lr) in enumerate(zip(batches, lrs, strict=True), start=1):
        x = jnp.asarray(x, dtype=jnp.float32)
        y = jnp.asarray(y, dtype=jnp.float32)
        params, loss = step_fn(params, x, y, jnp.float32(lr))
        losses.append(loss)
        if step % log_every == 0:
            history.append((step, float(jax.device_get(loss))))
    best = float(jnp.min(jnp.stack(losses)))
    return params, history, best
""",
    },
    "the step jitted once at module level, loss_fn static: the compile reused across calls": {
        "task4-solution": """
@functools.partial(jax.jit, static_argnums=0)
def _sgd_step(loss_fn, params, x, y, lr, best):
    loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
    params = jax.tree.map(lambda p, g: p - lr * g, params, grads)
    return params, loss, jnp.minimum(best, loss)


def fast_fit(loss_fn, params, batches, lrs, log_every):
    # one jitted step for the whole program: compiled once per loss_fn and shapes
    best = jnp.asarray(np.inf, jnp.float32)
    history = []
    for step, ((x, y), lr) in enumerate(zip(batches, lrs, strict=True), start=1):
        x, y = np.asarray(x, np.float32), np.asarray(y, np.float32)
        params, loss, best = _sgd_step(loss_fn, params, x, y, np.float32(lr), best)
        if step % log_every == 0:
            history.append((step, float(loss)))
    return params, history, float(best)
""",
    },
    "task 3 through jax.vjp with a float16 cotangent, optax.tree_utils.tree_cast": {
        "task3-solution": """
import optax

def scaled_grad(loss_fn, params, batch, scale):
    half_params = optax.tree_utils.tree_cast(params, jnp.float16)
    half_batch = tuple(jnp.asarray(b, dtype=jnp.float16) for b in batch)
    loss16, pullback = jax.vjp(lambda p: loss_fn(p, half_batch), half_params)
    # d(scale * loss)/dp: pull back the cotangent `scale` (in float16, like the loss)
    (g16,) = pullback(jnp.asarray(scale, loss16.dtype))
    # finiteness on the float16 gradient (an inf stays an inf in float32)
    finite = bool(
        jax.tree_util.tree_reduce(
            jnp.logical_and, jax.tree_util.tree_map(lambda g: jnp.isfinite(g).all(), g16), True
        )
    )
    grads = jax.tree_util.tree_map(lambda g: jnp.asarray(g, jnp.float32) / scale, g16)
    return grads, finite


def update_scale(scale, finite, good_steps, growth_interval=200):
    if finite:
        good_steps = good_steps + 1
        if good_steps == growth_interval:
            scale, good_steps = scale * 2, 0
    else:
        scale, good_steps = scale * 0.5, 0
    return scale, good_steps
""",
    },
}
