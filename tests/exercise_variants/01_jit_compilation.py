"""Wrong-but-plausible and alternative-correct answers for solutions/01_jit_compilation."""

WRONG = {
    "predicts traces from distinct shapes and dtypes": {
        "task1-solution": """
def count_traces(fn, inputs):
    seen = set()
    for x in inputs:
        a = np.asarray(x)
        seen.add((a.shape, a.dtype))
    return len(seen)
""",
    },
    "counts calls, not traces": {
        "task1-solution": """
def count_traces(fn, inputs):
    jitted = jax.jit(fn)
    n = 0
    for x in inputs:
        jitted(x)
        n += 1
    return n
""",
    },
    "counter around fn but fn never jitted": {
        "task1-solution": """
def count_traces(fn, inputs):
    count = 0
    for x in inputs:
        fn(x)
        count += 1
    return count
""",
    },
    "dispatch cache size is not the number of traces": {
        "task1-solution": """
def count_traces(fn, inputs):
    jitted = jax.jit(fn)
    for x in inputs:
        jitted(x)
    return jitted._cache_size()
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
}

CORRECT = {
    "list as counter inside a lambda": {
        "task1-solution": """
def count_traces(fn, inputs):
    hits = []
    jitted = jax.jit(lambda x: (hits.append(None), fn(x))[1])
    for x in inputs:
        jitted(x)
    return len(hits)
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
    "static_argnums and explicit powers": {
        "task3-solution": """
import math
from functools import partial


@partial(jax.jit, static_argnums=1)
def taylor_exp(x, degree):
    return sum(x**k / math.factorial(k) for k in range(degree + 1)) + jnp.zeros_like(x)
""",
    },
}
