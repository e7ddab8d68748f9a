"""Wrong-but-plausible and alternative-correct answers for solutions/04_pure_training_steps."""

_T1_INIT = """
def init_state(params, tx, key):
    return {
        "params": params,
        "opt_state": tx.init(params),
        "key": key,
        "step": jnp.zeros((), jnp.int32),
    }

"""


def _t1(body: str) -> str:
    return _T1_INIT + body


_T2_SCHEDULE = """
def make_schedule(peak_lr, warmup_steps, total_steps, end_lr):
    if warmup_steps == total_steps:
        return optax.join_schedules(
            [optax.linear_schedule(0.0, peak_lr, warmup_steps), optax.constant_schedule(end_lr)],
            boundaries=[warmup_steps],
        )
    return optax.warmup_cosine_decay_schedule(0.0, peak_lr, warmup_steps, total_steps, end_lr)

"""

_T2_OPTIMIZER = """
def make_optimizer(peak_lr, warmup_steps, total_steps, end_lr, clip_norm, weight_decay):
    adamw = optax.inject_hyperparams(optax.adamw, static_args="mask")
    return optax.chain(
        optax.clip_by_global_norm(clip_norm),
        adamw(
            make_schedule(peak_lr, warmup_steps, total_steps, end_lr),
            weight_decay=weight_decay,
            mask=lambda p: jax.tree.map(lambda a: a.ndim >= 2, p),
        ),
    )

"""

_T2_LR = """
def learning_rate_used(opt_state):
    return opt_state[1].hyperparams["learning_rate"]
"""


WRONG = {
    "the state keeps a key that was split for this step's loss_fn key": {
        "task1-solution": _t1("""
def make_train_step(loss_fn, tx):
    grad_fn = jax.value_and_grad(loss_fn, has_aux=True)

    def train_step(state, batch):
        # the next state's key first, then this step's key drawn from it
        next_key = jax.random.split(state["key"])[0]
        step_key = jax.random.split(next_key)[1]
        (loss, aux), grads = grad_fn(state["params"], batch, step_key)
        updates, opt_state = tx.update(grads, state["opt_state"], state["params"])
        new_state = {
            "params": optax.apply_updates(state["params"], updates),
            "opt_state": opt_state,
            "key": next_key,
            "step": state["step"] + 1,
        }
        return new_state, {"loss": loss, **aux}

    return train_step
"""),
    },
    "the same key every step (the state's key, never replaced)": {
        "task1-solution": _t1("""
def make_train_step(loss_fn, tx):
    def train_step(state, batch):
        (loss, aux), grads = jax.value_and_grad(loss_fn, has_aux=True)(
            state["params"], batch, state["key"]
        )
        updates, opt_state = tx.update(grads, state["opt_state"], state["params"])
        params = optax.apply_updates(state["params"], updates)
        new = {**state, "params": params, "opt_state": opt_state, "step": state["step"] + 1}
        return new, {"loss": loss, **aux}

    return train_step
"""),
    },
    "splits the key but returns the old one": {
        "task1-solution": _t1("""
def make_train_step(loss_fn, tx):
    def train_step(state, batch):
        _, step_key = jax.random.split(state["key"])
        (loss, aux), grads = jax.value_and_grad(loss_fn, has_aux=True)(
            state["params"], batch, step_key
        )
        updates, opt_state = tx.update(grads, state["opt_state"], state["params"])
        params = optax.apply_updates(state["params"], updates)
        new = {**state, "params": params, "opt_state": opt_state, "step": state["step"] + 1}
        return new, {"loss": loss, **aux}

    return train_step
"""),
    },
    "one subkey both for loss_fn and for the next state": {
        "task1-solution": _t1("""
def make_train_step(loss_fn, tx):
    def train_step(state, batch):
        key = jax.random.split(state["key"])[1]
        (loss, aux), grads = jax.value_and_grad(loss_fn, has_aux=True)(
            state["params"], batch, key
        )
        updates, opt_state = tx.update(grads, state["opt_state"], state["params"])
        new = {
            "params": optax.apply_updates(state["params"], updates),
            "opt_state": opt_state,
            "key": key,
            "step": state["step"] + 1,
        }
        return new, {"loss": loss, **aux}

    return train_step
"""),
    },
    "updates the state dict in place": {
        "task1-solution": _t1("""
def make_train_step(loss_fn, tx):
    def train_step(state, batch):
        key, step_key = jax.random.split(state["key"])
        (loss, aux), grads = jax.value_and_grad(loss_fn, has_aux=True)(
            state["params"], batch, step_key
        )
        updates, opt_state = tx.update(grads, state["opt_state"], state["params"])
        state["params"] = optax.apply_updates(state["params"], updates)
        state["opt_state"], state["key"] = opt_state, key
        state["step"] = state["step"] + 1
        return state, {"loss": loss, **aux}

    return train_step
"""),
    },
    "reports the loss after the update": {
        "task1-solution": _t1("""
def make_train_step(loss_fn, tx):
    def train_step(state, batch):
        key, step_key = jax.random.split(state["key"])
        grads, _ = jax.grad(loss_fn, has_aux=True)(state["params"], batch, step_key)
        updates, opt_state = tx.update(grads, state["opt_state"], state["params"])
        params = optax.apply_updates(state["params"], updates)
        loss, aux = loss_fn(params, batch, step_key)
        new = {"params": params, "opt_state": opt_state, "key": key, "step": state["step"] + 1}
        return new, {"loss": loss, **aux}

    return train_step
"""),
    },
    "plain optax.warmup_cosine_decay_schedule (raises when warmup == total)": {
        "task2-solution": """
def make_schedule(peak_lr, warmup_steps, total_steps, end_lr):
    return optax.warmup_cosine_decay_schedule(0.0, peak_lr, warmup_steps, total_steps, end_lr)

"""
        + _T2_OPTIMIZER
        + _T2_LR,
    },
    "hand-written schedule, NaN at warmup 0 and at warmup == total": {
        "task2-solution": """
import math


def make_schedule(peak_lr, warmup_steps, total_steps, end_lr):
    def schedule(step):
        step = jnp.asarray(step, jnp.float32)
        warm = peak_lr * step / warmup_steps
        progress = jnp.clip((step - warmup_steps) / (total_steps - warmup_steps), 0, 1)
        cosine = end_lr + (peak_lr - end_lr) * (1 + jnp.cos(math.pi * progress)) / 2
        return jnp.where(step <= warmup_steps, warm, cosine)

    return schedule

"""
        + _T2_OPTIMIZER
        + _T2_LR,
    },
    "clips after AdamW": {
        "task2-solution": _T2_SCHEDULE
        + """
def make_optimizer(peak_lr, warmup_steps, total_steps, end_lr, clip_norm, weight_decay):
    adamw = optax.inject_hyperparams(optax.adamw, static_args="mask")
    return optax.chain(
        adamw(
            make_schedule(peak_lr, warmup_steps, total_steps, end_lr),
            weight_decay=weight_decay,
            mask=lambda p: jax.tree.map(lambda a: a.ndim >= 2, p),
        ),
        optax.clip_by_global_norm(clip_norm),
    )


def learning_rate_used(opt_state):
    return opt_state[0].hyperparams["learning_rate"]
""",
    },
    "decays every parameter, biases and scales included": {
        "task2-solution": _T2_SCHEDULE
        + """
def make_optimizer(peak_lr, warmup_steps, total_steps, end_lr, clip_norm, weight_decay):
    adamw = optax.inject_hyperparams(optax.adamw)
    return optax.chain(
        optax.clip_by_global_norm(clip_norm),
        adamw(make_schedule(peak_lr, warmup_steps, total_steps, end_lr), weight_decay=weight_decay),
    )

"""
        + _T2_LR,
    },
    "mask function given to inject_hyperparams as if it were a schedule (decay silently off)": {
        "task2-solution": _T2_SCHEDULE
        + """
def make_optimizer(peak_lr, warmup_steps, total_steps, end_lr, clip_norm, weight_decay):
    return optax.chain(
        optax.clip_by_global_norm(clip_norm),
        optax.inject_hyperparams(optax.adamw)(
            make_schedule(peak_lr, warmup_steps, total_steps, end_lr),
            weight_decay=weight_decay,
            mask=lambda p: jax.tree.map(lambda a: a.ndim >= 2, p),
        ),
    )

"""
        + _T2_LR,
    },
    "the rate from a global schedule at the state's count (off by one, and one schedule)": {
        "task2-solution": "\n_LAST_SCHEDULE = None\n"
        + _T2_SCHEDULE
        + """
def make_optimizer(peak_lr, warmup_steps, total_steps, end_lr, clip_norm, weight_decay):
    global _LAST_SCHEDULE
    _LAST_SCHEDULE = make_schedule(peak_lr, warmup_steps, total_steps, end_lr)
    return optax.chain(
        optax.clip_by_global_norm(clip_norm),
        optax.adamw(
            _LAST_SCHEDULE,
            weight_decay=weight_decay,
            mask=lambda p: jax.tree.map(lambda a: a.ndim >= 2, p),
        ),
    )


def learning_rate_used(opt_state):
    return _LAST_SCHEDULE(opt_state[1][0].count)
""",
    },
    "sums the micro-batch gradients": {
        "task3-solution": """
def accumulated_grads(loss_fn, params, batch, num_micro):
    size = jax.tree.leaves(batch)[0].shape[0]
    if size % num_micro:
        raise ValueError("not divisible")
    micro = jax.tree.map(lambda a: a.reshape(num_micro, -1, *a.shape[1:]), batch)

    def body(carry, mb):
        loss, grads = jax.value_and_grad(loss_fn)(params, mb)
        return (carry[0] + loss, jax.tree.map(jnp.add, carry[1], grads)), None

    init = (jnp.zeros(()), jax.tree.map(jnp.zeros_like, params))
    (loss_sum, grad_sum), _ = jax.lax.scan(body, init, micro)
    return loss_sum / num_micro, grad_sum
""",
    },
    "divides by the number of micro-batches twice": {
        "task3-solution": """
def accumulated_grads(loss_fn, params, batch, num_micro):
    size = jax.tree.leaves(batch)[0].shape[0]
    if size % num_micro:
        raise ValueError("not divisible")
    micro = jax.tree.map(lambda a: a.reshape(num_micro, -1, *a.shape[1:]), batch)

    def body(carry, mb):
        loss, grads = jax.value_and_grad(loss_fn)(params, mb)
        grads = jax.tree.map(lambda g: g / num_micro, grads)
        return (carry[0] + loss, jax.tree.map(jnp.add, carry[1], grads)), None

    init = (jnp.zeros(()), jax.tree.map(jnp.zeros_like, params))
    (loss_sum, grad_sum), _ = jax.lax.scan(body, init, micro)
    return loss_sum / num_micro, jax.tree.map(lambda g: g / num_micro, grad_sum)
""",
    },
    "divides by the micro-batch size instead of their number": {
        "task3-solution": """
def accumulated_grads(loss_fn, params, batch, num_micro):
    size = jax.tree.leaves(batch)[0].shape[0]
    if size % num_micro:
        raise ValueError("not divisible")
    micro = jax.tree.map(lambda a: a.reshape(num_micro, -1, *a.shape[1:]), batch)

    def body(carry, mb):
        loss, grads = jax.value_and_grad(loss_fn)(params, mb)
        return (carry[0] + loss, jax.tree.map(jnp.add, carry[1], grads)), None

    init = (jnp.zeros(()), jax.tree.map(jnp.zeros_like, params))
    (loss_sum, grad_sum), _ = jax.lax.scan(body, init, micro)
    per_micro = size // num_micro
    return loss_sum / num_micro, jax.tree.map(lambda g: g / per_micro, grad_sum)
""",
    },
    "returns the last micro-batch loss": {
        "task3-solution": """
def accumulated_grads(loss_fn, params, batch, num_micro):
    size = jax.tree.leaves(batch)[0].shape[0]
    if size % num_micro:
        raise ValueError("not divisible")
    micro = jax.tree.map(lambda a: a.reshape(num_micro, -1, *a.shape[1:]), batch)

    def body(grad_sum, mb):
        loss, grads = jax.value_and_grad(loss_fn)(params, mb)
        return jax.tree.map(jnp.add, grad_sum, grads), loss

    grad_sum, losses = jax.lax.scan(body, jax.tree.map(jnp.zeros_like, params), micro)
    return losses[-1], jax.tree.map(lambda g: g / num_micro, grad_sum)
""",
    },
    "whole batch at once after the divisibility check (memory not bounded)": {
        "task3-solution": """
def accumulated_grads(loss_fn, params, batch, num_micro):
    size = jax.tree.leaves(batch)[0].shape[0]
    if size % num_micro:
        raise ValueError("not divisible")
    return jax.value_and_grad(loss_fn)(params, batch)
""",
    },
    "vmap over the micro-batches (all activations alive at once)": {
        "task3-solution": """
def accumulated_grads(loss_fn, params, batch, num_micro):
    size = jax.tree.leaves(batch)[0].shape[0]
    if size % num_micro:
        raise ValueError("not divisible")
    micro = jax.tree.map(lambda a: a.reshape(num_micro, -1, *a.shape[1:]), batch)
    losses, grads = jax.vmap(jax.value_and_grad(loss_fn), in_axes=(None, 0))(params, micro)
    return losses.mean(), jax.tree.map(lambda g: g.mean(axis=0), grads)
""",
    },
    "Python loop over the micro-batches (unrolled under jit)": {
        "task3-solution": """
def accumulated_grads(loss_fn, params, batch, num_micro):
    size = jax.tree.leaves(batch)[0].shape[0]
    if size % num_micro:
        raise ValueError("not divisible")
    step = size // num_micro
    loss_sum, grad_sum = 0.0, jax.tree.map(jnp.zeros_like, params)
    for i in range(num_micro):
        mb = jax.tree.map(lambda a: a[i * step : (i + 1) * step], batch)
        loss, grads = jax.value_and_grad(loss_fn)(params, mb)
        loss_sum, grad_sum = loss_sum + loss, jax.tree.map(jnp.add, grad_sum, grads)
    return loss_sum / num_micro, jax.tree.map(lambda g: g / num_micro, grad_sum)
""",
    },
    "scan stacks every micro-batch gradient, mean afterwards": {
        "task3-solution": """
def accumulated_grads(loss_fn, params, batch, num_micro):
    leaves = jax.tree.leaves(batch)
    if leaves[0].shape[0] % num_micro != 0:
        raise ValueError("batch size must be a multiple of num_micro")
    micro = jax.tree.map(lambda a: a.reshape(num_micro, -1, *a.shape[1:]), batch)

    def body(_, mb):
        return None, jax.value_and_grad(loss_fn)(params, mb)

    _, (losses, grads) = jax.lax.scan(body, None, micro)
    return losses.mean(), jax.tree.map(lambda g: g.mean(axis=0), grads)
""",
    },
    "no donation at all": {
        "task4-solution": """
def make_cache_writer():
    return jax.jit(lambda cache, pos, row: cache.at[pos].set(row.astype(cache.dtype)))
""",
    },
    "donated, but the cache is computed in float32 (no buffer of that dtype to reuse)": {
        "task4-solution": """
def make_cache_writer():
    def write(cache, pos, row):
        return cache.astype(jnp.float32).at[pos].set(row)

    return jax.jit(write, donate_argnums=0)
""",
    },
    "donated, but jnp.where promotes the bfloat16 cache to float32": {
        "task4-solution": """
def make_cache_writer():
    def write(cache, pos, row):
        hit = jnp.arange(cache.shape[0])[:, None] == pos
        return jnp.where(hit, row, cache)

    return jax.jit(write, donate_argnums=0)
""",
    },
    "position static (one compilation per position)": {
        "task4-solution": """
def make_cache_writer():
    def write(cache, pos, row):
        return cache.at[pos].set(row.astype(cache.dtype))

    return jax.jit(write, donate_argnums=0, static_argnums=1)
""",
    },
    "donates the row too": {
        "task4-solution": """
def make_cache_writer():
    def write(cache, pos, row):
        return jax.lax.dynamic_update_slice(cache, row.astype(cache.dtype)[None], (pos, 0))

    return jax.jit(write, donate_argnums=(0, 2))
""",
    },
    "an object that borrows a donating jit's lower and deletes the cache itself": {
        "task4-solution": """
def make_cache_writer():
    def write(cache, pos, row):
        return cache.at[pos].set(row.astype(cache.dtype))

    plain, donating = jax.jit(write), jax.jit(write, donate_argnums=0)

    class Writer:
        lower = staticmethod(donating.lower)

        def __call__(self, cache, pos, row):
            out = plain(cache, pos, row)
            cache.delete()
            return out

    return Writer()
""",
    },
    "the key loss_fn used, split again for the next state": {
        "task1-solution": """
def init_state(params, tx, key):
    step = jnp.zeros((), jnp.int32)
    return {"params": params, "opt_state": tx.init(params), "key": key, "step": step}


def make_train_step(loss_fn, tx):
    def train_step(state, batch):
        _, step_key = jax.random.split(state["key"])
        (loss, aux), grads = jax.value_and_grad(loss_fn, has_aux=True)(
            state["params"], batch, step_key
        )
        next_key, _ = jax.random.split(step_key)
        updates, opt_state = tx.update(grads, state["opt_state"], state["params"])
        return {
            "params": optax.apply_updates(state["params"], updates),
            "opt_state": opt_state,
            "key": next_key,
            "step": state["step"] + 1,
        }, {"loss": loss, **aux}

    return train_step
""",
    },
    "the optimizer state's dicts refreshed in place": {
        "task1-solution": """
def init_state(params, tx, key):
    step = jnp.zeros((), jnp.int32)
    return {"params": params, "opt_state": tx.init(params), "key": key, "step": step}


def _write_back(old, new):
    # reuse the optimizer state's containers: copy the new leaves into the old dicts in place
    if isinstance(old, dict):
        for name in old:
            if isinstance(old[name], (dict, tuple, list)) or hasattr(old[name], "_fields"):
                _write_back(old[name], new[name])
            else:
                old[name] = new[name]
    elif isinstance(old, (tuple, list)):
        for o, n in zip(old, new):
            _write_back(o, n)
    return old


def make_train_step(loss_fn, tx):
    grad_fn = jax.value_and_grad(loss_fn, has_aux=True)

    def train_step(state, batch):
        next_key, step_key = jax.random.split(state["key"])
        (loss, aux), grads = grad_fn(state["params"], batch, step_key)
        updates, opt_state = tx.update(grads, state["opt_state"], state["params"])
        _write_back(state["opt_state"], opt_state)  # the moment dicts refreshed in place
        return {
            "params": optax.apply_updates(state["params"], updates),
            "opt_state": opt_state,
            "key": next_key,
            "step": state["step"] + 1,
        }, {"loss": loss, **aux}

    return train_step
""",
    },
    "the clip norm fixed at 1.0 whatever clip_norm says": {
        "task2-solution": """
def make_schedule(peak_lr, warmup_steps, total_steps, end_lr):
    def schedule(t):
        t = jnp.asarray(t, jnp.float32)
        warm = peak_lr * t / max(warmup_steps, 1)
        frac = jnp.clip((t - warmup_steps) / max(total_steps - warmup_steps, 1), 0.0, 1.0)
        cosine = end_lr + (peak_lr - end_lr) * (1 + jnp.cos(jnp.pi * frac)) / 2
        return jnp.where(t < warmup_steps, warm, jnp.where(t < total_steps, cosine, end_lr))

    return schedule


def make_optimizer(peak_lr, warmup_steps, total_steps, end_lr, clip_norm, weight_decay):
    adamw = optax.inject_hyperparams(optax.adamw, static_args="mask")
    return optax.chain(
        optax.clip_by_global_norm(1.0),  # the usual value (clip_norm silently ignored)
        adamw(
            learning_rate=make_schedule(peak_lr, warmup_steps, total_steps, end_lr),
            weight_decay=weight_decay,
            mask=lambda params: jax.tree.map(lambda p: p.ndim >= 2, params),
        ),
    )


def learning_rate_used(opt_state):
    return opt_state[1].hyperparams["learning_rate"]
""",
    },
    "the batch size read from batch[0] or batch['x']: other pytrees fail": {
        "task3-solution": """
def accumulated_grads(loss_fn, params, batch, num_micro):
    x = batch[0] if isinstance(batch, (tuple, list)) else batch["x"]
    size = x.shape[0]
    if size % num_micro:
        raise ValueError(f"batch of {size} cannot be split into {num_micro} equal parts")
    micro = jax.tree.map(lambda a: a.reshape(num_micro, size // num_micro, *a.shape[1:]), batch)

    def body(carry, mb):
        loss_sum, grad_sum = carry
        loss, grads = jax.value_and_grad(loss_fn)(params, mb)
        return (loss_sum + loss, jax.tree.map(jnp.add, grad_sum, grads)), None

    init = (jnp.zeros(()), jax.tree.map(jnp.zeros_like, params))
    (loss_sum, grad_sum), _ = jax.lax.scan(body, init, micro)
    return loss_sum / num_micro, jax.tree.map(lambda g: g / num_micro, grad_sum)
""",
    },
    "loss_fn evaluated twice: once for the metrics, once for the gradient": {
        "task1-solution": """
def init_state(params, tx, key):
    return {
        "params": params,
        "opt_state": tx.init(params),
        "key": key,
        "step": jnp.zeros((), jnp.int32),
    }


def make_train_step(loss_fn, tx):
    def train_step(state, batch):
        next_key, step_key = jax.random.split(state["key"])
        # the metrics, then the gradient of the loss at the same key
        loss, aux = loss_fn(state["params"], batch, step_key)
        grads = jax.grad(lambda p: loss_fn(p, batch, step_key)[0])(state["params"])
        updates, opt_state = tx.update(grads, state["opt_state"], state["params"])
        new_state = {
            "params": optax.apply_updates(state["params"], updates),
            "opt_state": opt_state,
            "key": next_key,
            "step": state["step"] + 1,
        }
        return new_state, {"loss": loss, **aux}

    return train_step
""",
    },
    "the next state key folded from the key given to loss_fn": {
        "task1-solution": """
def init_state(params, tx, key):
    return {
        "params": params,
        "opt_state": tx.init(params),
        "key": key,
        "step": jnp.zeros((), jnp.int32),
    }


DROPOUT_STREAM, NEXT_STREAM = 101, 202  # named streams for fold_in


def make_train_step(loss_fn, tx):
    grad_fn = jax.value_and_grad(loss_fn, has_aux=True)

    def train_step(state, batch):
        # this step's key, then the next step's key derived from it: a chain of keys
        step_key = jax.random.fold_in(state["key"], DROPOUT_STREAM)
        next_key = jax.random.fold_in(step_key, NEXT_STREAM)
        (loss, aux), grads = grad_fn(state["params"], batch, step_key)
        updates, opt_state = tx.update(grads, state["opt_state"], state["params"])
        new_state = {
            "params": optax.apply_updates(state["params"], updates),
            "opt_state": opt_state,
            "key": next_key,
            "step": state["step"] + 1,
        }
        return new_state, {"loss": loss, **aux}

    return train_step
""",
    },
    "the next state key folded from the loss_fn key with a constant past 1023": {
        "task1-solution": _t1("""
def make_train_step(loss_fn, tx):
    grad_fn = jax.value_and_grad(loss_fn, has_aux=True)

    def train_step(state, batch):
        # this step's key from the state's; the next state's key chained from it
        step_key = jax.random.split(state["key"])[1]
        next_key = jax.random.fold_in(step_key, 12345)
        (loss, aux), grads = grad_fn(state["params"], batch, step_key)
        updates, opt_state = tx.update(grads, state["opt_state"], state["params"])
        new_state = {
            "params": optax.apply_updates(state["params"], updates),
            "opt_state": opt_state,
            "key": next_key,
            "step": state["step"] + 1,
        }
        return new_state, {"loss": loss, **aux}

    return train_step
"""),
    },
    "adamw with eps=1e-6 instead of its default": {
        "task2-solution": """
def make_schedule(peak_lr, warmup_steps, total_steps, end_lr):
    if warmup_steps == total_steps:
        # optax's cosine part needs at least one decay step: warm up, then hold end_lr
        return optax.join_schedules(
            [optax.linear_schedule(0.0, peak_lr, warmup_steps), optax.constant_schedule(end_lr)],
            boundaries=[warmup_steps],
        )
    return optax.warmup_cosine_decay_schedule(
        init_value=0.0,
        peak_value=peak_lr,
        warmup_steps=warmup_steps,
        decay_steps=total_steps,
        end_value=end_lr,
    )


def make_optimizer(peak_lr, warmup_steps, total_steps, end_lr, clip_norm, weight_decay):
    def matrices(params):
        return jax.tree.map(lambda p: p.ndim >= 2, params)

    adamw = optax.inject_hyperparams(optax.adamw, static_args="mask")
    return optax.chain(
        optax.clip_by_global_norm(clip_norm),
        adamw(
            learning_rate=make_schedule(peak_lr, warmup_steps, total_steps, end_lr),
            weight_decay=weight_decay,
            mask=matrices,
            eps=1e-6,  # a safer epsilon for small second moments
        ),
    )


def learning_rate_used(opt_state):
    return opt_state[1].hyperparams["learning_rate"]
""",
    },
    "task 4: the row written by a jnp.where over the whole cache (every row rewritten)": {
        "task4-solution": """
def make_cache_writer():
    def write(cache, pos, row):
        # every row is read and rewritten (a select over the whole cache), into the donated buffer
        hit = (jnp.arange(cache.shape[0]) == pos)[:, None]
        return jnp.where(hit, row.astype(cache.dtype)[None, :], cache)

    return jax.jit(write, donate_argnums=0)
""",
    },
    "task 3: the reshape's axes swapped (size // num_micro micro-batches of num_micro)": {
        "task3-solution": """
def accumulated_grads(loss_fn, params, batch, num_micro):
    size = jax.tree.leaves(batch)[0].shape[0]
    if size % num_micro:
        raise ValueError(f"batch of {size} cannot be split into {num_micro} equal parts")
    # reshape with the axes the wrong way round: the scan runs over size // num_micro groups,
    # each of num_micro examples (the micro-batch grows with num_micro)
    micro = jax.tree.map(lambda a: a.reshape(size // num_micro, num_micro, *a.shape[1:]), batch)
    steps = size // num_micro

    def body(carry, mb):
        loss_sum, grad_sum = carry
        loss, grads = jax.value_and_grad(loss_fn)(params, mb)
        return (loss_sum + loss, jax.tree.map(jnp.add, grad_sum, grads)), None

    init = (jnp.zeros(()), jax.tree.map(jnp.zeros_like, params))
    (loss_sum, grad_sum), _ = jax.lax.scan(body, init, micro)
    return loss_sum / steps, jax.tree.map(lambda g: g / steps, grad_sum)
""",
    },
}

CORRECT = {
    "the losses out of the scan as its output, their mean": {
        "task3-solution": """
def accumulated_grads(loss_fn, params, batch, num_micro):
    size = jax.tree.leaves(batch)[0].shape[0]
    if size % num_micro:
        raise ValueError(f"batch of {size} cannot be split into {num_micro} equal parts")
    micro = jax.tree.map(lambda a: a.reshape(num_micro, size // num_micro, *a.shape[1:]), batch)

    def body(grad_sum, mb):
        loss, grads = jax.value_and_grad(loss_fn)(params, mb)
        return jax.tree.map(jnp.add, grad_sum, grads), loss  # the losses come out of the scan

    grad_sum, losses = jax.lax.scan(body, jax.tree.map(jnp.zeros_like, params), micro)
    return jnp.mean(losses), jax.tree.map(lambda g: g / num_micro, grad_sum)
""",
    },
    "fold_in keys, a jitted step, the update by tree_map": {
        "task1-solution": """
def init_state(params, tx, key):
    return dict(params=params, opt_state=tx.init(params), key=key, step=jnp.array(0, jnp.int32))


def make_train_step(loss_fn, tx):
    def loss_only(params, batch, key):
        return loss_fn(params, batch, key)

    @jax.jit
    def train_step(state, batch):
        step_key = jax.random.fold_in(state["key"], 0)
        next_key = jax.random.fold_in(state["key"], 1)
        grad_fn = jax.value_and_grad(loss_only, has_aux=True)
        (loss, aux), grads = grad_fn(state["params"], batch, step_key)
        updates, new_opt = tx.update(grads, state["opt_state"], state["params"])
        new_params = jax.tree.map(lambda p, u: p + u, state["params"], updates)
        metrics = dict(aux)
        metrics["loss"] = loss
        return (
            dict(params=new_params, opt_state=new_opt, key=next_key, step=state["step"] + 1),
            metrics,
        )

    return train_step
""",
    },
    "hand-written guarded schedule; decay and the rate as separate chain links": {
        "task2-solution": """
import math


def make_schedule(peak_lr, warmup_steps, total_steps, end_lr):
    def schedule(step):
        t = jnp.asarray(step, jnp.float32)
        warm = peak_lr * t / max(warmup_steps, 1)
        frac = jnp.clip((t - warmup_steps) / max(total_steps - warmup_steps, 1), 0.0, 1.0)
        cosine = end_lr + (peak_lr - end_lr) * (1 + jnp.cos(math.pi * frac)) / 2
        return jnp.where(t < warmup_steps, warm, jnp.where(t < total_steps, cosine, end_lr))

    return schedule


def make_optimizer(peak_lr, warmup_steps, total_steps, end_lr, clip_norm, weight_decay):
    schedule = make_schedule(peak_lr, warmup_steps, total_steps, end_lr)
    return optax.chain(
        optax.clip_by_global_norm(max_norm=clip_norm),
        optax.scale_by_adam(),
        optax.masked(
            optax.add_decayed_weights(weight_decay),
            lambda params: jax.tree.map(lambda leaf: jnp.ndim(leaf) > 1, params),
        ),
        optax.inject_hyperparams(optax.scale_by_learning_rate)(learning_rate=schedule),
    )


def learning_rate_used(opt_state):
    def injected(node):
        return hasattr(node, "hyperparams")

    (rate,) = [
        node.hyperparams["learning_rate"]
        for node in jax.tree.leaves(opt_state, is_leaf=injected)
        if injected(node)
    ]
    return rate
""",
    },
    "split and stack, then a scan that carries the sums": {
        "task3-solution": """
def accumulated_grads(loss_fn, params, batch, num_micro):
    leaves = jax.tree.leaves(batch)
    if leaves[0].shape[0] % num_micro != 0:
        raise ValueError("batch size must be a multiple of num_micro")
    micro = jax.tree.map(lambda a: jnp.stack(jnp.split(a, num_micro)), batch)
    grad_fn = jax.value_and_grad(loss_fn)

    def body(carry, mb):
        loss, grads = grad_fn(params, mb)
        return jax.tree.map(lambda c, x: c + x / num_micro, carry, (loss, grads)), None

    zero = (jnp.zeros(()), jax.tree.map(jnp.zeros_like, params))
    (loss, grads), _ = jax.lax.scan(body, zero, micro)
    return loss, grads
""",
    },
    "fori_loop with dynamic slices": {
        "task3-solution": """
def accumulated_grads(loss_fn, params, batch, num_micro):
    n = jax.tree.leaves(batch)[0].shape[0]
    if n % num_micro:
        raise ValueError(f"{n} examples do not split into {num_micro} micro-batches")
    m = n // num_micro

    def body(i, carry):
        mb = jax.tree.map(lambda a: jax.lax.dynamic_slice_in_dim(a, i * m, m), batch)
        loss, grads = jax.value_and_grad(loss_fn)(params, mb)
        return carry[0] + loss, jax.tree.map(jnp.add, carry[1], grads)

    loss, grads = jax.lax.fori_loop(
        0, num_micro, body, (jnp.zeros(()), jax.tree.map(jnp.zeros_like, params))
    )
    return loss / num_micro, jax.tree.map(lambda g: g / num_micro, grads)
""",
    },
    "dynamic_update_slice, donated by argument name": {
        "task4-solution": """
from functools import partial


def make_cache_writer():
    @partial(jax.jit, donate_argnames="cache")
    def write(cache, pos, row):
        update = row.reshape(1, -1).astype(cache.dtype)
        return jax.lax.dynamic_update_slice(cache, update, (pos, jnp.zeros_like(pos)))

    return write
""",
    },
    "task 2: the schedule's phase picked with lax.switch (scalar steps only, as the text allows)": {
        "task2-solution": """
def make_schedule(peak_lr, warmup_steps, total_steps, end_lr):
    warm_div = max(warmup_steps, 1)
    decay_div = max(total_steps - warmup_steps, 1)

    def warm(t):
        return peak_lr * t / warm_div

    def decay(t):
        cosine = jnp.cos(jnp.pi * (t - warmup_steps) / decay_div)
        return end_lr + (peak_lr - end_lr) * (1 + cosine) / 2

    def after(t):
        return jnp.full_like(t, end_lr)

    def schedule(step):
        t = jnp.asarray(step)
        phase = jnp.where(t < warmup_steps, 0, jnp.where(t < total_steps, 1, 2))
        # one branch runs, no NaN from the branches not taken
        return jax.lax.switch(phase, [warm, decay, after], t.astype(jnp.float32))

    return schedule


def make_optimizer(peak_lr, warmup_steps, total_steps, end_lr, clip_norm, weight_decay):
    adamw = optax.inject_hyperparams(optax.adamw, static_args="mask")
    return optax.chain(
        optax.clip_by_global_norm(clip_norm),
        adamw(
            learning_rate=make_schedule(peak_lr, warmup_steps, total_steps, end_lr),
            weight_decay=weight_decay,
            mask=lambda p: jax.tree.map(lambda a: a.ndim >= 2, p),
        ),
    )


def learning_rate_used(opt_state):
    return opt_state[1].hyperparams["learning_rate"]
""",
    },
    "task 3: strided micro-batches (rows i, i + num_micro, ...) through reshape and swapaxes": {
        "task3-solution": """
def accumulated_grads(loss_fn, params, batch, num_micro):
    size = jax.tree.leaves(batch)[0].shape[0]
    if size % num_micro:
        raise ValueError(f"{size} rows do not split into {num_micro} equal micro-batches")
    per = size // num_micro
    # micro-batch i takes rows i, i + num_micro, i + 2 * num_micro, ... (a strided split)
    def strided(a):
        return jnp.swapaxes(a.reshape(per, num_micro, *a.shape[1:]), 0, 1)

    micro = jax.tree.map(strided, batch)

    def body(carry, mb):
        loss_sum, grad_sum = carry
        loss, grads = jax.value_and_grad(loss_fn)(params, mb)
        return (loss_sum + loss, jax.tree.map(jnp.add, grad_sum, grads)), None

    init = (jnp.zeros(()), jax.tree.map(jnp.zeros_like, params))
    (loss_sum, grad_sum), _ = jax.lax.scan(body, init, micro)
    return loss_sum / num_micro, jax.tree.map(lambda g: g / num_micro, grad_sum)
""",
    },
}
