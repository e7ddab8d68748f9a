"""Wrong-but-plausible and alternative-correct answers for solutions/04_pure_training_steps."""

WRONG = {
    "updates the params dict in place": {
        "task1-solution": """
def make_train_step(loss_fn, tx):
    def train_step(params, opt_state, batch):
        loss, grads = jax.value_and_grad(loss_fn)(params, batch)
        updates, opt_state = tx.update(grads, opt_state, params)
        params.update(optax.apply_updates(params, updates))
        return params, opt_state, {"loss": loss}

    return train_step
""",
    },
    "returns the old optimizer state": {
        "task1-solution": """
def make_train_step(loss_fn, tx):
    def train_step(params, opt_state, batch):
        loss, grads = jax.value_and_grad(loss_fn)(params, batch)
        updates, _ = tx.update(grads, opt_state, params)
        return optax.apply_updates(params, updates), opt_state, {"loss": loss}

    return train_step
""",
    },
    "reports the loss after the update": {
        "task1-solution": """
def make_train_step(loss_fn, tx):
    def train_step(params, opt_state, batch):
        grads = jax.grad(loss_fn)(params, batch)
        updates, opt_state = tx.update(grads, opt_state, params)
        params = optax.apply_updates(params, updates)
        return params, opt_state, {"loss": loss_fn(params, batch)}

    return train_step
""",
    },
    "subtracts the updates (Optax updates are already negated)": {
        "task1-solution": """
def make_train_step(loss_fn, tx):
    def train_step(params, opt_state, batch):
        loss, grads = jax.value_and_grad(loss_fn)(params, batch)
        updates, opt_state = tx.update(grads, opt_state, params)
        params = jax.tree.map(lambda p, u: p - u, params, updates)
        return params, opt_state, {"loss": loss}

    return train_step
""",
    },
    "clips after AdamW": {
        "task2-solution": """
def make_schedule(peak_lr, warmup_steps, total_steps, end_lr):
    return optax.warmup_cosine_decay_schedule(0.0, peak_lr, warmup_steps, total_steps, end_lr)


def make_optimizer(peak_lr, warmup_steps, total_steps, end_lr, clip_norm, weight_decay):
    schedule = make_schedule(peak_lr, warmup_steps, total_steps, end_lr)
    return optax.chain(
        optax.adamw(schedule, weight_decay=weight_decay),
        optax.clip_by_global_norm(clip_norm),
    )
""",
    },
    "decay_steps counts only the decay (schedule off by the warm-up)": {
        "task2-solution": """
def make_schedule(peak_lr, warmup_steps, total_steps, end_lr):
    return optax.warmup_cosine_decay_schedule(
        0.0, peak_lr, warmup_steps, total_steps - warmup_steps, end_lr
    )


def make_optimizer(peak_lr, warmup_steps, total_steps, end_lr, clip_norm, weight_decay):
    schedule = make_schedule(peak_lr, warmup_steps, total_steps, end_lr)
    return optax.chain(
        optax.clip_by_global_norm(clip_norm),
        optax.adamw(schedule, weight_decay=weight_decay),
    )
""",
    },
    "warm-up one step too long": {
        "task2-solution": """
def make_schedule(peak_lr, warmup_steps, total_steps, end_lr):
    return optax.warmup_cosine_decay_schedule(0.0, peak_lr, warmup_steps + 1, total_steps, end_lr)


def make_optimizer(peak_lr, warmup_steps, total_steps, end_lr, clip_norm, weight_decay):
    schedule = make_schedule(peak_lr, warmup_steps, total_steps, end_lr)
    return optax.chain(
        optax.clip_by_global_norm(clip_norm),
        optax.adamw(schedule, weight_decay=weight_decay),
    )
""",
    },
    "Adam without weight decay": {
        "task2-solution": """
def make_schedule(peak_lr, warmup_steps, total_steps, end_lr):
    return optax.warmup_cosine_decay_schedule(0.0, peak_lr, warmup_steps, total_steps, end_lr)


def make_optimizer(peak_lr, warmup_steps, total_steps, end_lr, clip_norm, weight_decay):
    schedule = make_schedule(peak_lr, warmup_steps, total_steps, end_lr)
    return optax.chain(optax.clip_by_global_norm(clip_norm), optax.adam(schedule))
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
}

CORRECT = {
    "explicit tree_map update, jitted inside": {
        "task1-solution": """
def make_train_step(loss_fn, tx):
    grad_fn = jax.value_and_grad(loss_fn)

    @jax.jit
    def train_step(params, opt_state, batch):
        loss, grads = grad_fn(params, batch)
        updates, new_state = tx.update(grads, opt_state, params)
        new_params = jax.tree.map(lambda p, u: p + u, params, updates)
        return new_params, new_state, dict(loss=loss)

    return train_step
""",
    },
    "hand-written schedule, chain built inline": {
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


def make_optimizer(peak_lr, warmup_steps, total_steps, end_lr, clip_norm, weight_decay):
    return optax.chain(
        optax.clip_by_global_norm(max_norm=clip_norm),
        optax.adamw(
            learning_rate=make_schedule(peak_lr, warmup_steps, total_steps, end_lr),
            weight_decay=weight_decay,
        ),
    )
""",
    },
    "joined linear and cosine schedules": {
        "task2-solution": """
def make_schedule(peak_lr, warmup_steps, total_steps, end_lr):
    return optax.join_schedules(
        [
            optax.linear_schedule(0.0, peak_lr, warmup_steps),
            optax.cosine_decay_schedule(
                peak_lr, total_steps - warmup_steps, alpha=end_lr / peak_lr
            ),
        ],
        boundaries=[warmup_steps],
    )


def make_optimizer(peak_lr, warmup_steps, total_steps, end_lr, clip_norm, weight_decay):
    schedule = make_schedule(peak_lr, warmup_steps, total_steps, end_lr)
    return optax.chain(
        optax.clip_by_global_norm(clip_norm),
        optax.adamw(schedule, weight_decay=weight_decay),
    )
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
}
