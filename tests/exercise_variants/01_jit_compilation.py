"""Wrong-but-plausible and alternative-correct answers for solutions/01_jit_compilation."""

WRONG = {
    "counts the calls of run, not compilations": {
        "task1-solution": """
def count_compiles(run):
    run()
    return 1
""",
    },
    "every compile-stage event counted (trace, lowering and compile)": {
        "task1-solution": """
def count_compiles(run):
    events = []

    def listener(event, duration_secs, **kwargs):
        if event.startswith("/jax/core/compile/"):
            events.append(event)

    jax.monitoring.register_event_duration_secs_listener(listener)
    try:
        run()
    finally:
        jax.monitoring.unregister_event_duration_listener(listener)
    return len(events)
""",
    },
    "trace events counted instead of compilations": {
        "task1-solution": """
def count_compiles(run):
    events = []

    def listener(event, duration_secs, **kwargs):
        if event == "/jax/core/compile/jaxpr_trace_duration":
            events.append(event)

    jax.monitoring.register_event_duration_secs_listener(listener)
    try:
        run()
    finally:
        jax.monitoring.unregister_event_duration_listener(listener)
    return len(events)
""",
    },
    "'Compiling' log lines counted (also logged by a lowering that never compiles)": {
        "task1-solution": """
import logging


def count_compiles(run):
    lines = []

    class Keep(logging.Handler):
        def emit(self, record):
            lines.append(record.getMessage())

    handler = Keep()
    logger = logging.getLogger("jax")
    logger.addHandler(handler)
    try:
        with jax.log_compiles():
            run()
    finally:
        logger.removeHandler(handler)
    return sum(line.startswith("Compiling") for line in lines)
""",
    },
    "listeners left registered, one shared counter": {
        "task1-solution": """
_total = [0]


def count_compiles(run):
    _total[0] = 0

    def listener(event, duration_secs, **kwargs):
        if event == "/jax/core/compile/backend_compile_duration":
            _total[0] += 1

    jax.monitoring.register_event_duration_secs_listener(listener)
    run()
    return _total[0]
""",
    },
    "Python if on a traced value": {
        "task2-solution": """
def leaky_relu(x, slope):
    return jnp.where(x > 0, x, slope * x)


def next_learning_rate(loss, previous_loss, lr):
    if loss > previous_loss:
        return lr * 0.5
    return lr * 1.1
""",
    },
    "maximum only equals leaky relu for slopes up to 1": {
        "task2-solution": """
def leaky_relu(x, slope):
    return jnp.maximum(x, slope * x)


def next_learning_rate(loss, previous_loss, lr):
    return lax.cond(loss > previous_loss, lambda r: r * 0.5, lambda r: r * 1.1, lr)
""",
    },
    "equal losses treated as going up": {
        "task2-solution": """
def leaky_relu(x, slope):
    return jnp.where(x > 0, x, slope * x)


def next_learning_rate(loss, previous_loss, lr):
    return jnp.where(loss >= previous_loss, lr * 0.5, lr * 1.1)
""",
    },
    "NumPy where cannot take tracers": {
        "task2-solution": """
def leaky_relu(x, slope):
    return np.where(x > 0, x, slope * x)


def next_learning_rate(loss, previous_loss, lr):
    return lax.cond(loss > previous_loss, lambda r: r * 0.5, lambda r: r * 1.1, lr)
""",
    },
    "degree not static": {
        "task3-solution": """
import math


def _taylor(x, degree):
    total = jnp.zeros_like(x)
    for k in range(degree + 1):
        total = total + x**k / math.factorial(k)
    return total


taylor_exp = jax.jit(_taylor)
""",
    },
    "off by one: stops at degree - 1": {
        "task3-solution": """
import math


def _taylor(x, degree):
    total = jnp.zeros_like(x)
    for k in range(degree):
        total = total + x**k / math.factorial(k)
    return total


taylor_exp = jax.jit(_taylor, static_argnames="degree")
""",
    },
    "traced degree in a fori_loop: right values, but not static": {
        "task3-solution": """
def _taylor(x, degree):
    def body(k, carry):
        total, term = carry
        return total + term, term * x / (k + 1)

    total, _ = lax.fori_loop(0, degree + 1, body, (jnp.zeros_like(x), jnp.ones_like(x)))
    return total


taylor_exp = jax.jit(_taylor)
""",
    },
    "divides by math.factorial(k), a Python int: 13! does not fit JAX's int32": {
        "task3-solution": """
import math


def taylor_impl(x, degree):
    return sum((x**k / math.factorial(k) for k in range(degree + 1)), jnp.zeros_like(x))


taylor_exp = jax.jit(taylor_impl, static_argnames=("degree",))
""",
    },
    "the array made static instead of the degree": {
        "task3-solution": """
import math


def _taylor(x, degree):
    total = jnp.zeros_like(x)
    for k in range(degree + 1):
        total = total + x**k / math.factorial(k)
    return total


taylor_exp = jax.jit(_taylor, static_argnums=0)
""",
    },
    "learning rate made static: one compile per value": {
        "task4-solution": """
@functools.partial(jax.jit, static_argnames="lr")
def sgd_step(w, batch, lr):
    return w - lr * grad_fn(w, batch)


def train_fast(w, batches, lrs):
    for batch, lr in zip(batches, lrs, strict=True):
        w = sgd_step(w, batch, lr=lr)
    return w
""",
    },
    "jax.jit(partial(...)) built inside the loop": {
        "task4-solution": """
def _step(w, batch, lr):
    return w - lr * grad_fn(w, batch)


sgd_step = jax.jit(_step)


def train_fast(w, batches, lrs):
    for batch, lr in zip(batches, lrs, strict=True):
        w = jax.jit(functools.partial(_step, lr=lr))(w, batch)
    return w
""",
    },
    "jitted once, but the learning rate read from a global at trace time": {
        "task4-solution": """
schedule = {"lr": 0.0}


@jax.jit
def _update(w, batch):
    return w - schedule["lr"] * grad_fn(w, batch)


sgd_step = jax.jit(lambda w, batch, lr: w - lr * grad_fn(w, batch))


def train_fast(w, batches, lrs):
    for batch, lr in zip(batches, lrs, strict=True):
        schedule["lr"] = lr
        w = _update(w, batch)
    return w
""",
    },
    "no jit at all: nothing recompiles, but nothing is compiled either": {
        "task4-solution": """
def sgd_step(w, batch, lr):
    return w - lr * grad_fn(w, batch)


def train_fast(w, batches, lrs):
    for batch, lr in zip(batches, lrs, strict=True):
        w = sgd_step(w, batch, lr)
    return w
""",
    },
    "the listener never unregistered": {
        "task1-solution": """
def count_compiles(run):
    events = []

    def listener(event, duration_secs, **kwargs):
        if event == "/jax/core/compile/backend_compile_duration":
            events.append(1)

    jax.monitoring.register_event_duration_secs_listener(listener)
    run()
    return len(events)
""",
    },
    "the listener unregistered after run, not in finally: left listening when run raises": {
        "task1-solution": """
def count_compiles(run):
    events = []

    def listener(event, duration_secs, **kwargs):
        if event == "/jax/core/compile/backend_compile_duration":
            events.append(1)

    jax.monitoring.register_event_duration_secs_listener(listener)
    run()
    jax.monitoring.unregister_event_duration_listener(listener)
    return len(events)
""",
    },
    "losses within isclose's tolerance treated as equal": {
        "task2-solution": """
def leaky_relu(x, slope):
    return jnp.where(x > 0, x, slope * x)


def next_learning_rate(loss, previous_loss, lr):
    went_up = (loss > previous_loss) & ~jnp.isclose(loss, previous_loss)
    return jnp.where(went_up, lr * 0.5, lr * 1.1)
""",
    },
    "a small rise in the loss tolerated as noise": {
        "task2-solution": """
def leaky_relu(x, slope):
    return jnp.where(x > 0, x, slope * x)


def next_learning_rate(loss, previous_loss, lr):
    return jnp.where(loss - previous_loss > 1e-4, lr * 0.5, lr * 1.1)
""",
    },
    "a class of jitted functions per degree, not the function jax.jit returns": {
        "task3-solution": """
class _PerDegree:
    def __init__(self):
        self._fns = {}

    def _cache_size(self):
        return 0

    def __call__(self, x, degree):
        if degree not in self._fns:

            def poly(x, degree=degree):
                total, term = jnp.ones_like(x), jnp.ones_like(x)
                for k in range(1, degree + 1):
                    term = term * x / k
                    total = total + term
                return total

            self._fns[degree] = jax.jit(poly)
        return self._fns[degree](x)


taylor_exp = _PerDegree()
""",
    },
    "factorials as Python ints, which overflow int32 from degree 13": {
        "task3-solution": """
import math


def _taylor(x, degree):
    return sum(x**k / math.factorial(k) for k in range(degree + 1)) + jnp.zeros_like(x)


taylor_exp = jax.jit(_taylor, static_argnames="degree")
""",
    },
    "exp itself from degree 10 on": {
        "task3-solution": """
def _taylor(x, degree):
    if degree >= 10:  # the series has converged in float32 by then: use exp itself
        return jnp.exp(x)
    total, term = jnp.ones_like(x), jnp.ones_like(x)
    for k in range(1, degree + 1):
        term = term * x / k
        total = total + term
    return total


taylor_exp = jax.jit(_taylor, static_argnames="degree")
""",
    },
    "one listener registered when the cell runs, never removed": {
        "task1-solution": """
_backend_compiles = [0]


def _count_backend_compiles(event, duration_secs, **kwargs):
    if event == "/jax/core/compile/backend_compile_duration":
        _backend_compiles[0] += 1


# registered once, when this cell runs; count_compiles only reads the counter
jax.monitoring.register_event_duration_secs_listener(_count_backend_compiles)


def count_compiles(run):
    before = _backend_compiles[0]
    run()
    return _backend_compiles[0] - before
""",
    },
    "a callable object registered once when the cell runs, never removed": {
        "task1-solution": """
class _CompileCounter:  # one counter for the whole session, read by count_compiles

    def __init__(self):
        self.total = 0

    def __call__(self, event, duration_secs, **kwargs):
        if event == "/jax/core/compile/backend_compile_duration":
            self.total += 1


_counter = _CompileCounter()
jax.monitoring.register_event_duration_secs_listener(_counter)


def count_compiles(run):
    before = _counter.total
    run()
    return _counter.total - before
""",
    },
    "a time-span listener registered once when the cell runs, never removed": {
        "task1-solution": """
_compile_log = []


def _on_span(event, start_time, end_time, **kwargs):
    if event == "/jax/core/compile/backend_compile_duration":
        _compile_log.append(kwargs.get("fun_name"))


jax.monitoring.register_event_time_span_listener(_on_span)  # once, when this cell runs


def count_compiles(run):
    start = len(_compile_log)
    run()
    return len(_compile_log) - start
""",
    },
    "compile logging via a handler on JAX's logger, never removed (left on when run raises)": {
        "task1-solution": """
import logging


def count_compiles(run):
    # JAX logs "Finished XLA compilation of ..." once per backend compile
    records = []

    class Collect(logging.Handler):
        def emit(self, record):
            records.append(record.getMessage())

    logging.getLogger("jax").addHandler(Collect())  # never removed: keeps listening
    jax.config.update("jax_log_compiles", True)
    run()
    jax.config.update("jax_log_compiles", False)  # not reached when run raises
    return sum(m.startswith("Finished XLA compilation") for m in records)
""",
    },
    "the whole schedule jitted anew at every call, its rates baked in: one compile per call": {
        "task4-solution": """
sgd_step = jax.jit(lambda w, batch, lr: w - lr * grad_fn(w, batch))


def train_fast(w, batches, lrs):
    # one jitted program for the whole schedule: built per call, the schedule baked in
    @jax.jit
    def run_all(w, batches):
        for batch, lr in zip(batches, lrs, strict=True):
            w = sgd_step(w, batch, lr)
        return w

    return run_all(w, batches)
""",
    },
    "train_fast starts from zeros, not from the w it is given": {
        "task4-solution": """
sgd_step = jax.jit(lambda w, batch, lr: w - lr * grad_fn(w, batch))


def train_fast(w, batches, lrs):
    params = jnp.zeros_like(w)  # start the weights from zero
    for batch, lr in zip(batches, lrs, strict=True):
        params = sgd_step(params, batch, lr)
    return params
""",
    },
    "an eager lax.scan whose body is defined in train_fast: a compile at every call": {
        "task4-solution": """
sgd_step = jax.jit(lambda w, batch, lr: w - lr * grad_fn(w, batch))


def train_fast(w, batches, lrs):
    xs = jnp.stack([x for x, _ in batches])
    ys = jnp.stack([y for _, y in batches])

    def body(w, step):
        x, y, lr = step
        return sgd_step(w, (x, y), lr), None

    w, _ = jax.lax.scan(body, w, (xs, ys, jnp.asarray(lrs, jnp.float32)))
    return w
""",
    },
    "a logging filter on the jax loggers, left in place when run raises": {
        "task1-solution": """
import logging


class _FinishedCompiles(logging.Filter):
    # counts JAX's "Finished XLA compilation" records (one per backend compile) and keeps
    # the compile log, which jax.log_compiles prints at WARNING level, off the notebook

    def __init__(self):
        super().__init__()
        self.count = 0

    def filter(self, record):
        if record.getMessage().startswith("Finished XLA compilation"):
            self.count += 1
        return False


_finished = _FinishedCompiles()


def _jax_loggers():
    names = [n for n in logging.Logger.manager.loggerDict if n.startswith("jax")]
    return [logging.getLogger(n) for n in names]


def count_compiles(run):
    _finished.count = 0
    loggers = _jax_loggers()
    for logger in loggers:
        logger.addFilter(_finished)  # one filter object: never added twice
    with jax.log_compiles():
        run()
    for logger in loggers:
        logger.removeFilter(_finished)
    return _finished.count
""",
    },
    "sys.stderr captured under jax.log_compiles, not restored when run raises": {
        "task1-solution": """
import io
import sys


def count_compiles(run):
    # jax.log_compiles prints "Finished XLA compilation of ..." on stderr once per backend
    # compile: capture stderr while run runs and count those lines
    captured = io.StringIO()
    saved, sys.stderr = sys.stderr, captured
    with jax.log_compiles():
        run()
    sys.stderr = saved
    return captured.getvalue().count("Finished XLA compilation")
""",
    },
    "train_fast continues from its last weights per shape, ignoring w": {
        "task4-solution": """
sgd_step = None  # replace with the function that jax.jit returns


def sgd_update(w, batch, lr):
    return w - lr * grad_fn(w, batch)


sgd_step = jax.jit(sgd_update)

# the weights stay on the device between schedules: keyed by shape, a schedule continues
# from where the previous one of the same width stopped (saves re-uploading w)
_resident = {}


def train_fast(w, batches, lrs):
    w = _resident.get(jnp.shape(w), w)
    for batch, lr in zip(batches, lrs, strict=True):
        w = sgd_step(w, batch, lr)
    _resident[jnp.shape(w)] = w
    return w
""",
    },
    "task 1: JAX's logger set not to propagate, restored only when run returns": {
        "task1-solution": """
import logging


def count_compiles(run):
    records = []
    handler = logging.Handler()
    handler.emit = records.append
    logger = logging.getLogger("jax")
    logger.addHandler(handler)
    logger.propagate = False  # keep the compile log out of the notebook while counting
    try:
        with jax.log_compiles():
            run()
    finally:
        logger.removeHandler(handler)
    logger.propagate = True
    return sum(r.getMessage().startswith("Finished XLA compilation") for r in records)
""",
    },
    "task 2: leaky_relu as mask arithmetic (0 * inf gives NaN)": {
        "task2-solution": """
def leaky_relu(x, slope):
    # branch-free: a 0/1 mask for each side
    positive = (x > 0).astype(x.dtype)
    return positive * x + (1 - positive) * slope * x


def next_learning_rate(loss, previous_loss, lr):
    return lax.cond(loss > previous_loss, lambda r: r * 0.5, lambda r: r * 1.1, lr)
""",
    },
}

CORRECT = {
    "a nonlocal counter in the listener": {
        "task1-solution": """
def count_compiles(run):
    n = 0

    def on_duration(event, duration_secs, **kwargs):
        nonlocal n
        n += event == "/jax/core/compile/backend_compile_duration"

    jax.monitoring.register_event_duration_secs_listener(on_duration)
    try:
        run()
        return n
    finally:
        jax.monitoring.unregister_event_duration_listener(on_duration)
""",
    },
    "jax.log_compiles, counting the 'Finished XLA compilation' records": {
        "task1-solution": """
import logging


def count_compiles(run):
    records = []
    handler = logging.Handler()
    handler.emit = records.append
    logger = logging.getLogger("jax")
    logger.addHandler(handler)
    try:
        with jax.log_compiles():
            run()
    finally:
        logger.removeHandler(handler)
    return sum(r.getMessage().startswith("Finished XLA compilation") for r in records)
""",
    },
    "where with the condition flipped; learning rate by where": {
        "task2-solution": """
def leaky_relu(x, slope):
    return jnp.where(x <= 0, slope * x, x)


def next_learning_rate(loss, previous_loss, lr):
    went_up = jnp.greater(loss, previous_loss)
    return jnp.where(went_up, 0.5, 1.1) * lr
""",
    },
    "lax.select and a cond with operands": {
        "task2-solution": """
def leaky_relu(x, slope):
    x = jnp.asarray(x)
    return lax.select(x > 0, x, (slope * x).astype(x.dtype))


def next_learning_rate(loss, previous_loss, lr):
    def down(operands):
        return operands[1] * 1.1

    def up(operands):
        return operands[1] / 2

    return lax.cond(previous_loss < loss, up, down, (loss, lr))
""",
    },
    "static_argnums and explicit powers, factorials as floats": {
        "task3-solution": """
import math
from functools import partial


@partial(jax.jit, static_argnums=1)
def taylor_exp(x, degree):
    return sum(x**k / float(math.factorial(k)) for k in range(degree + 1)) + jnp.zeros_like(x)
""",
    },
    "one jitted lambda with the learning rate as an array argument": {
        "task4-solution": """
sgd_step = jax.jit(lambda w, batch, lr: w - lr * grad_fn(w, batch))


def train_fast(w, batches, lrs):
    rates = [jnp.float32(lr) for lr in lrs]
    for i, batch in enumerate(batches):
        w = sgd_step(w, batch, rates[i])
    return w
""",
    },
    "time-span listener in a context manager (the compile event is also sent as a span)": {
        "task1-solution": """
from contextlib import contextmanager

BACKEND_COMPILE = "/jax/core/compile/backend_compile_duration"


@contextmanager
def compile_spans(spans):
    def on_span(event, start_time, end_time, **kwargs):
        if event == BACKEND_COMPILE:
            spans.append((kwargs.get("fun_name"), end_time - start_time))

    jax.monitoring.register_event_time_span_listener(on_span)
    try:
        yield spans
    finally:
        jax.monitoring.unregister_event_time_span_listener(on_span)


def count_compiles(run):
    with compile_spans([]) as spans:
        run()
    return len(spans)
""",
    },
    "the steps as one jitted lax.scan: a compile per schedule length, not per step": {
        "task4-solution": """
sgd_step = jax.jit(lambda w, batch, lr: w - lr * grad_fn(w, batch))


def scan_body(w, step):
    x, y, lr = step
    return sgd_step(w, (x, y), lr), None


run_schedule = jax.jit(lambda w, xs, ys, lrs: jax.lax.scan(scan_body, w, (xs, ys, lrs))[0])


def train_fast(w, batches, lrs):
    xs = jnp.stack([x for x, _ in batches])
    ys = jnp.stack([y for _, y in batches])
    return run_schedule(w, xs, ys, jnp.asarray(lrs, jnp.float32))
""",
    },
}
