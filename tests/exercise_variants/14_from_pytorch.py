"""Wrong-but-plausible and alternative-correct answers for solutions/14_from_pytorch."""


def _running_norm(
    *, update, var_update="var * n / (n - 1)", param_kind="nnx.BatchStat", in_eval=False
):
    """RunningNorm with the running-statistics update written as given."""
    guard = "True" if in_eval else "not self.use_running_average"
    return f"""
class RunningNorm(nnx.Module):
    def __init__(self, features, momentum=0.1, eps=1e-5):
        self.momentum, self.eps = momentum, eps
        self.use_running_average = False
        self.scale = nnx.Param(jnp.ones(features))
        self.running_mean = {param_kind}(jnp.zeros(features))
        self.running_var = {param_kind}(jnp.ones(features))
        self.num_batches_tracked = {param_kind}(jnp.zeros((), jnp.int32))

    def __call__(self, x):
        n = x.shape[0]
        mean, var = x.mean(0), x.var(0)
        m = self.momentum
        if {guard}:
            old_mean, old_var = self.running_mean[...], self.running_var[...]
            self.running_mean[...] = {update.format(old="old_mean", new="mean")}
            self.running_var[...] = {update.format(old="old_var", new=var_update)}
            self.num_batches_tracked[...] = self.num_batches_tracked[...] + 1
        if self.use_running_average:
            mean, var = self.running_mean[...], self.running_var[...]
        return (x - mean) / jnp.sqrt(var + self.eps) * self.scale[...]
"""


_TORCH_MOMENTUM = "(1 - m) * {old} + m * ({new})"

_EMA = "    ema = jax.tree.map(lambda e, p: EMA_DECAY * e + (1 - EMA_DECAY) * p, ema, params)\n"
_UPDATE = "    params = optax.apply_updates(params, updates)\n"

_TRAIN_STEP = """
@jax.jit
def train_step(params, ema, opt_state, x, y, key, step):
    noisy = x + NOISE_STD * jax.random.normal(jax.random.fold_in(key, step), x.shape)
    loss, grads = jax.value_and_grad(lambda p: jnp.mean((predict(p, noisy) - y) ** 2))(params)
    updates, opt_state = TX.update(grads, opt_state, params)
    params = optax.apply_updates(params, updates)
    ema = jax.tree.map(lambda e, p: EMA_DECAY * e + (1 - EMA_DECAY) * p, ema, params)
    return params, ema, opt_state, loss
"""

_TRAIN = """

def train(step_fn, params, opt_state, batches, key):
    ema, losses = params, []
    for step, (x, y) in enumerate(batches):
        params, ema, opt_state, loss = step_fn(params, ema, opt_state, x, y, key, step)
        losses.append(loss)
    return params, ema, opt_state, jnp.stack(losses)
"""

_NAMES = '{"Dense_0": "encoder", "LayerNorm_0": "norm", "Dense_1": "head"}'


def _load(*, params=True, moments=True, counts=True, transpose=False):
    """load_train_state with pieces left out or a PyTorch habit switched on."""
    fix = "value.T if leaf == 'kernel' else value" if transpose else "value"
    lines = [
        "def load_train_state(model, optimizer, checkpoint):",
        f"    names = {_NAMES}",
        "",
        "    def rename(tree):",
        "        return {",
        f"            names[layer]: {{leaf: {fix} for leaf, value in v.items()}}",
        "            for layer, v in tree.items()",
        "        }",
        "",
    ]
    if params:
        lines += [
            "    state = nnx.state(model, nnx.Param)",
            '    nnx.replace_by_pure_dict(state, rename(checkpoint["params"]))',
            "    nnx.update(model, state)",
        ]
    if moments or counts:
        lines += [
            '    adam = checkpoint["opt_state"]["0"]',
            "    current = nnx.to_pure_dict(nnx.state(optimizer))",
        ]
        lines += ["    pure = current"]
        if moments:
            lines += [
                '    pure["opt_state"][0]["mu"] = rename(adam["mu"])',
                '    pure["opt_state"][0]["nu"] = rename(adam["nu"])',
            ]
        if counts:
            lines += [
                '    pure["opt_state"][0]["count"] = adam["count"]',
                '    pure["step"] = checkpoint["step"]',
            ]
        lines += [
            "    opt = nnx.state(optimizer)",
            "    nnx.replace_by_pure_dict(opt, pure)",
            "    nnx.update(optimizer, opt)",
        ]
    return "\n".join(lines) + "\n"


_WRONG = {
    "task1-solution": [
        # Flax's momentum convention (BatchNorm's momentum=0.99 weighs the old value)
        _running_norm(update="m * {old} + (1 - m) * ({new})"),
        # the biased variance in the running estimate, as nnx.BatchNorm keeps it
        _running_norm(update=_TORCH_MOMENTUM, var_update="var"),
        # buffers as trainable parameters: an optimizer would update them
        _running_norm(update=_TORCH_MOMENTUM, param_kind="nnx.Param"),
        # the buffers change in eval mode too
        _running_norm(update=_TORCH_MOMENTUM, in_eval=True),
        # eps before momentum, as in torch.nn.BatchNorm1d(num_features, eps, momentum)
        _running_norm(update=_TORCH_MOMENTUM).replace(
            "features, momentum=0.1, eps=1e-5", "features, eps=1e-5, momentum=0.1"
        ),
        # no gradient through the batch's statistics: PyTorch differentiates through them
        """
class RunningNorm(nnx.Module):
    def __init__(self, features, momentum=0.1, eps=1e-5):
        self.momentum, self.eps = momentum, eps
        self.use_running_average = False
        self.scale = nnx.Param(jnp.ones(features))
        self.running_mean = nnx.BatchStat(jnp.zeros(features))
        self.running_var = nnx.BatchStat(jnp.ones(features))
        self.num_batches_tracked = nnx.BatchStat(jnp.zeros((), jnp.int32))

    def __call__(self, x):
        if self.use_running_average:
            mean, var = self.running_mean[...], self.running_var[...]
        else:
            # torch.no_grad(): the statistics are not differentiated
            n = x.shape[0]
            mean = jax.lax.stop_gradient(x.mean(0))
            var = jax.lax.stop_gradient(x.var(0))
            m = self.momentum
            self.running_mean[...] = (1 - m) * self.running_mean[...] + m * mean
            self.running_var[...] = (1 - m) * self.running_var[...] + m * var * n / (n - 1)
            self.num_batches_tracked[...] = self.num_batches_tracked[...] + 1
        return (x - mean) / jnp.sqrt(var + self.eps) * self.scale[...]
""",
        # the one-pass variance E[x^2] - E[x]^2: it cancels on a batch far from zero
        """
class RunningNorm(nnx.Module):
    def __init__(self, features, momentum=0.1, eps=1e-5):
        self.momentum, self.eps = momentum, eps
        self.use_running_average = False
        self.scale = nnx.Param(jnp.ones(features))
        self.running_mean = nnx.BatchStat(jnp.zeros(features))
        self.running_var = nnx.BatchStat(jnp.ones(features))
        self.num_batches_tracked = nnx.BatchStat(jnp.zeros((), jnp.int32))

    def __call__(self, x):
        if self.use_running_average:
            mean, var = self.running_mean[...], self.running_var[...]
        else:
            n = x.shape[0]
            # one pass over the batch, as Flax's BatchNorm does: E[x^2] - E[x]^2
            mean = jnp.mean(x, axis=0)
            var = jnp.mean(x * x, axis=0) - mean * mean
            m = self.momentum
            old_mean = self.running_mean[...]
            self.running_mean[...] = (1 - m) * old_mean + m * jax.lax.stop_gradient(mean)
            unbiased = jax.lax.stop_gradient(var) * n / (n - 1)
            self.running_var[...] = (1 - m) * self.running_var[...] + m * unbiased
            self.num_batches_tracked[...] = self.num_batches_tracked[...] + 1
        return (x - mean) / jnp.sqrt(var + self.eps) * self.scale[...]
""",
        # the mode in an attribute of its own name: use_running_average missing
        """
class RunningNorm(nnx.Module):
    def __init__(self, features, momentum=0.1, eps=1e-5):
        self.momentum, self.eps = momentum, eps
        self.deterministic = False  # model.eval() / model.train() flip it, as for nnx.Dropout
        self.scale = nnx.Param(jnp.ones(features))
        self.running_mean = nnx.BatchStat(jnp.zeros(features))
        self.running_var = nnx.BatchStat(jnp.ones(features))
        self.num_batches_tracked = nnx.BatchStat(jnp.zeros((), jnp.int32))

    def __call__(self, x):
        if self.deterministic:
            mean, var = self.running_mean[...], self.running_var[...]
        else:
            n = x.shape[0]
            mean, var = x.mean(0), x.var(0)
            m = self.momentum
            self.running_mean[...] = (1 - m) * self.running_mean[...] + m * jax.lax.stop_gradient(
                mean
            )
            unbiased = jax.lax.stop_gradient(var) * n / (n - 1)
            self.running_var[...] = (1 - m) * self.running_var[...] + m * unbiased
            self.num_batches_tracked[...] = self.num_batches_tracked[...] + 1
        return (x - mean) / jnp.sqrt(var + self.eps) * self.scale[...]
""",
        # eval mode with PyTorch's default eps, whatever eps the module was given
        """
class RunningNorm(nnx.Module):
    def __init__(self, features, momentum=0.1, eps=1e-5):
        self.momentum, self.eps = momentum, eps
        self.use_running_average = False
        self.scale = nnx.Param(jnp.ones(features))
        self.running_mean = nnx.BatchStat(jnp.zeros(features))
        self.running_var = nnx.BatchStat(jnp.ones(features))
        self.num_batches_tracked = nnx.BatchStat(jnp.zeros((), jnp.int32))

    def __call__(self, x):
        if self.use_running_average:
            # inference: the stored statistics, PyTorch's default epsilon
            inv = jax.lax.rsqrt(self.running_var[...] + 1e-5)
            return (x - self.running_mean[...]) * inv * self.scale[...]
        n = x.shape[0]
        mean, var = x.mean(0), x.var(0)
        m = self.momentum
        self.running_mean[...] = (1 - m) * self.running_mean[...] + m * jax.lax.stop_gradient(mean)
        unbiased = jax.lax.stop_gradient(var) * n / (n - 1)
        self.running_var[...] = (1 - m) * self.running_var[...] + m * unbiased
        self.num_batches_tracked[...] = self.num_batches_tracked[...] + 1
        return (x - mean) / jnp.sqrt(var + self.eps) * self.scale[...]
""",
        # the count unsigned, as nnx.Optimizer's step (PyTorch's count is signed)
        """
class RunningNorm(nnx.Module):
    def __init__(self, features, momentum=0.1, eps=1e-5):
        self.momentum, self.eps = momentum, eps
        self.use_running_average = False
        self.scale = nnx.Param(jnp.ones(features))
        self.running_mean = nnx.BatchStat(jnp.zeros(features))
        self.running_var = nnx.BatchStat(jnp.ones(features))
        # a count never goes negative: unsigned, like nnx.Optimizer's step
        self.num_batches_tracked = nnx.BatchStat(jnp.zeros((), jnp.uint32))

    def __call__(self, x):
        if self.use_running_average:
            mean, var = self.running_mean[...], self.running_var[...]
        else:
            n = x.shape[0]
            mean, var = x.mean(0), x.var(0)
            m = self.momentum
            batch_mean = jax.lax.stop_gradient(mean)
            self.running_mean[...] = (1 - m) * self.running_mean[...] + m * batch_mean
            unbiased = jax.lax.stop_gradient(var) * n / (n - 1)
            self.running_var[...] = (1 - m) * self.running_var[...] + m * unbiased
            self.num_batches_tracked[...] = self.num_batches_tracked[...] + 1
        return (x - mean) / jnp.sqrt(var + self.eps) * self.scale[...]
""",
    ],
    "task2-solution": [
        # the same key at every step: the same noise every time
        _TRAIN_STEP.replace("jax.random.fold_in(key, step)", "key") + _TRAIN,
        # .item() habit: a float per step, stacked afterwards
        _TRAIN_STEP + _TRAIN.replace("losses.append(loss)", "losses.append(float(loss))"),
        # the step as a static argument: one compilation per step
        "from functools import partial\n"
        + _TRAIN_STEP.replace("@jax.jit", '@partial(jax.jit, static_argnames="step")')
        + _TRAIN,
        # the step static again, the jitted function under another name
        _TRAIN_STEP.replace("@jax.jit\n", "").replace("def train_step(", "def _step(")
        + '\ntrain_step = jax.jit(_step, static_argnames="step")\n'
        + _TRAIN,
        # the EMA from the parameters before the update
        _TRAIN_STEP.replace(_UPDATE + _EMA, _EMA + _UPDATE) + _TRAIN,
        # a host copy per step: NumPy reads the value (in place for a one-device CPU array)
        _TRAIN_STEP + _TRAIN.replace("losses.append(loss)", "losses.append(np.asarray(loss))"),
        # a read through a derived array: stop at the first non-finite loss
        _TRAIN_STEP
        + _TRAIN.replace(
            "losses.append(loss)",
            "losses.append(loss)\n        if not bool(jnp.isfinite(loss)):\n            break",
        ),
        # no read, but a wait for the device at every step
        _TRAIN_STEP
        + _TRAIN.replace("losses.append(loss)", "losses.append(jax.block_until_ready(loss))"),
        # a progress line every fifth step
        _TRAIN_STEP
        + _TRAIN.replace(
            "losses.append(loss)",
            "losses.append(loss)\n        if step % 5 == 0:\n"
            '            print(f"step {step}: {loss:.4f}")',
        ),
        # no read, but a wait: polling is_ready() until the step is done
        _TRAIN_STEP
        + _TRAIN.replace(
            "losses.append(loss)",
            "losses.append(loss)\n        while not loss.is_ready():\n            pass",
        ),
        # a read of one shard: NumPy views a one-device array in place, without `_value`
        _TRAIN_STEP
        + _TRAIN.replace(
            "losses.append(loss)",
            "losses.append(loss)\n"
            "        if not np.isfinite(np.asarray(loss.addressable_data(0))):\n"
            "            break",
        ),
        # the parameters checked on the host after every step
        """
@jax.jit
def train_step(params, ema, opt_state, x, y, key, step):
    noisy = x + NOISE_STD * jax.random.normal(jax.random.fold_in(key, step), x.shape)
    loss, grads = jax.value_and_grad(lambda p: jnp.mean((predict(p, noisy) - y) ** 2))(params)
    updates, opt_state = TX.update(grads, opt_state, params)
    params = optax.apply_updates(params, updates)
    ema = jax.tree.map(lambda e, p: EMA_DECAY * e + (1 - EMA_DECAY) * p, ema, params)
    return params, ema, opt_state, loss


def train(step_fn, params, opt_state, batches, key):
    # no loss is read: a divergence guard on the parameters instead
    ema, losses = params, []
    for step, (x, y) in enumerate(batches):
        params, ema, opt_state, loss = step_fn(params, ema, opt_state, x, y, key, step)
        losses.append(loss)
        if not np.isfinite(np.asarray(params["w"])).all():
            break
    return params, ema, opt_state, jnp.stack(losses)
""",
        # the optimizer state donated, as PyTorch updates it in place
        """
from functools import partial

@partial(jax.jit, donate_argnums=(2,))  # the optimizer state updated in place, as in PyTorch
def train_step(params, ema, opt_state, x, y, key, step):
    noisy = x + NOISE_STD * jax.random.normal(jax.random.fold_in(key, step), x.shape)
    loss, grads = jax.value_and_grad(lambda p: jnp.mean((predict(p, noisy) - y) ** 2))(params)
    updates, opt_state = TX.update(grads, opt_state, params)
    params = optax.apply_updates(params, updates)
    ema = jax.tree.map(lambda e, p: EMA_DECAY * e + (1 - EMA_DECAY) * p, ema, params)
    return params, ema, opt_state, loss


def train(step_fn, params, opt_state, batches, key):
    ema, losses = params, []
    for step, (x, y) in enumerate(batches):
        params, ema, opt_state, loss = step_fn(params, ema, opt_state, x, y, key, step)
        losses.append(loss)
    return params, ema, opt_state, jnp.stack(losses)
""",
        # the noise drawn eagerly around a jitted core
        """
@jax.jit
def _core_step(params, ema, opt_state, noisy, y):
    def loss_fn(params):
        return jnp.mean((predict(params, noisy) - y) ** 2)

    loss, grads = jax.value_and_grad(loss_fn)(params)
    updates, opt_state = TX.update(grads, opt_state, params)
    params = optax.apply_updates(params, updates)
    ema = jax.tree.map(lambda e, p: EMA_DECAY * e + (1 - EMA_DECAY) * p, ema, params)
    return params, ema, opt_state, loss


def train_step(params, ema, opt_state, x, y, key, step):
    # augmentation first, like PyTorch's loop: drawn eagerly, op by op, outside the compiled step
    noisy = x + NOISE_STD * jax.random.normal(jax.random.fold_in(key, step), x.shape)
    return _core_step(params, ema, opt_state, noisy, y)


def train(step_fn, params, opt_state, batches, key):
    ema, losses = params, []
    for step, (x, y) in enumerate(batches):
        params, ema, opt_state, loss = step_fn(params, ema, opt_state, x, y, key, step)
        losses.append(loss)
    return params, ema, opt_state, jnp.stack(losses)
""",
        # the EMA updated by train, train_step returning it unchanged
        """
@jax.jit
def train_step(params, ema, opt_state, x, y, key, step):
    noisy = x + NOISE_STD * jax.random.normal(jax.random.fold_in(key, step), x.shape)

    def loss_fn(params):
        return jnp.mean((predict(params, noisy) - y) ** 2)

    loss, grads = jax.value_and_grad(loss_fn)(params)
    updates, opt_state = TX.update(grads, opt_state, params)
    params = optax.apply_updates(params, updates)
    return params, ema, opt_state, loss  # the EMA is kept by the loop, as in PyTorch


def train(step_fn, params, opt_state, batches, key):
    ema, losses = params, []
    for step, (x, y) in enumerate(batches):
        params, ema, opt_state, loss = step_fn(params, ema, opt_state, x, y, key, step)
        # like the PyTorch loop: the EMA update after the optimizer step, no gradients involved
        ema = jax.tree.map(lambda e, p: EMA_DECAY * e + (1 - EMA_DECAY) * p, ema, params)
        losses.append(loss)
    return params, ema, opt_state, jnp.stack(losses)
""",
        # a fresh Adam state made in train, whatever opt_state it was given
        """
@jax.jit
def train_step(params, ema, opt_state, x, y, key, step):
    noisy = x + NOISE_STD * jax.random.normal(jax.random.fold_in(key, step), x.shape)

    def loss_fn(params):
        return jnp.mean((predict(params, noisy) - y) ** 2)

    loss, grads = jax.value_and_grad(loss_fn)(params)
    updates, opt_state = TX.update(grads, opt_state, params)
    params = optax.apply_updates(params, updates)
    ema = jax.tree.map(lambda e, p: EMA_DECAY * e + (1 - EMA_DECAY) * p, ema, params)
    return params, ema, opt_state, loss


def train(step_fn, params, opt_state, batches, key):
    # like PyTorch, where a fresh optimizer starts with empty state: Adam starts over here
    opt_state = jax.jit(TX.init)(params)
    ema, losses = params, []
    for step, (x, y) in enumerate(batches):
        params, ema, opt_state, loss = step_fn(params, ema, opt_state, x, y, key, step)
        losses.append(loss)
    return params, ema, opt_state, jnp.stack(losses)
""",
    ],
    "task3-solution": [
        # the parameters only: Adam starts again from zero moments
        _load(moments=False, counts=False),
        # the moments but not Adam's count nor the step: the bias correction restarts
        _load(counts=False),
        # a PyTorch habit: transpose every kernel
        _load(transpose=True),
        # everything, but the step as the checkpoint stored it: int32, not the optimizer's uint32
        _load(),
        """
def load_train_state(model, optimizer, checkpoint):
    names = {"Dense_0": "encoder", "LayerNorm_0": "norm", "Dense_1": "head"}

    def rename(tree):
        return {names[layer]: dict(leaves) for layer, leaves in tree.items()}

    params = nnx.state(model, nnx.Param)
    nnx.replace_by_pure_dict(params, rename(checkpoint["params"]))
    nnx.update(model, params)
    adam = checkpoint["opt_state"]["0"]
    opt = nnx.state(optimizer)
    pure = {
        # the optimizer's step is the number of updates: Adam's count says it
        "step": np.asarray(adam["count"], np.uint32),
        "opt_state": {
            0: {"count": adam["count"], "mu": rename(adam["mu"]), "nu": rename(adam["nu"])}
        },
    }
    nnx.replace_by_pure_dict(opt, pure)
    nnx.update(optimizer, opt)
""",
    ],
}

_CORRECT = {
    "task1-solution": [
        """
class RunningNorm(nnx.Module):
    def __init__(self, features, momentum=0.1, eps=1e-5):
        self.momentum = momentum
        self.eps = eps
        self.scale = nnx.Param(jnp.ones((features,)))
        self.running_mean = nnx.BatchStat(jnp.zeros((features,)))
        self.running_var = nnx.BatchStat(jnp.ones((features,)))
        self.num_batches_tracked = nnx.BatchStat(jnp.array(0))
        self.use_running_average = False

    def __call__(self, x):
        if self.use_running_average:
            centred = x - self.running_mean[...]
            return centred * jax.lax.rsqrt(self.running_var[...] + self.eps) * self.scale[...]
        mean = jnp.mean(x, axis=0)
        self.running_mean[...] += self.momentum * (mean - self.running_mean[...])
        unbiased = jnp.var(x, axis=0, ddof=1)
        self.running_var[...] += self.momentum * (unbiased - self.running_var[...])
        self.num_batches_tracked[...] += 1
        return (x - mean) * jax.lax.rsqrt(jnp.var(x, axis=0) + self.eps) * self.scale[...]
""",
        """
class RunningNorm(nnx.Module):
    def __init__(self, features: int, momentum: float = 0.1, eps: float = 1e-5):
        self.features = features
        self.momentum = momentum
        self.eps = eps
        self.scale = nnx.Param(jnp.ones((features,), jnp.float32))
        self.running_mean = nnx.BatchStat(jnp.zeros((features,), jnp.float32))
        self.running_var = nnx.BatchStat(jnp.ones((features,), jnp.float32))
        self.num_batches_tracked = nnx.BatchStat(jnp.array(0, dtype=jnp.int32))
        self.use_running_average = False

    def __call__(self, x):
        if not self.use_running_average:
            n = x.shape[0]
            mean = jnp.mean(x, axis=0)
            centred = x - mean
            var = jnp.mean(centred * centred, axis=0)
            # buffers updated without stop_gradient: nothing differentiates through them
            m = self.momentum
            self.running_mean[...] = self.running_mean[...] * (1 - m) + m * mean
            self.running_var[...] = self.running_var[...] * (1 - m) + m * (var * (n / (n - 1)))
            self.num_batches_tracked[...] += 1
        else:
            mean = self.running_mean[...]
            var = self.running_var[...]
            centred = x - mean
        return centred / jnp.sqrt(var + self.eps) * self.scale[...]
""",
    ],
    "task2-solution": [
        """
def ema_step(params, ema, opt_state, x, y, key, step):
    noise = jax.random.normal(jax.random.fold_in(key, step), x.shape)

    def loss_fn(p):
        error = predict(p, x + NOISE_STD * noise) - y
        return jnp.mean(error * error)

    loss, grads = jax.value_and_grad(loss_fn)(params)
    updates, new_opt_state = TX.update(grads, opt_state, params)
    new_params = optax.apply_updates(params, updates)
    new_ema = optax.incremental_update(new_params, ema, step_size=1 - EMA_DECAY)
    return new_params, new_ema, new_opt_state, loss


train_step = jax.jit(ema_step, donate_argnums=())


def train(step_fn, params, opt_state, batches, key):
    state = (params, params, opt_state)
    losses = []
    for step in range(len(batches)):
        x, y = batches[step]
        *state, loss = step_fn(*state, x, y, key, step)
        losses.append(loss)
    params, ema, opt_state = state
    return params, ema, opt_state, jnp.array(losses)
""",
        # the losses joined with jnp.hstack, and a finiteness flag kept on the device
        _TRAIN_STEP
        + _TRAIN.replace("ema, losses = params, []", "ema, losses, finite = params, [], True")
        .replace(
            "losses.append(loss)",
            "losses.append(loss)\n        finite = jnp.logical_and(finite, jnp.isfinite(loss))",
        )
        .replace("jnp.stack(losses)", "jnp.hstack(losses)"),
        # one-element arrays concatenated
        _TRAIN_STEP
        + _TRAIN.replace("losses.append(loss)", "losses.append(jnp.atleast_1d(loss))").replace(
            "jnp.stack(losses)", "jnp.concatenate(losses)"
        ),
    ],
    "task3-solution": [
        f"""
def load_train_state(model, optimizer, checkpoint):
    names = {_NAMES}

    def convert(tree):
        out = {{}}
        for key, value in tree.items():
            if key == "1" and value == {{}}:
                continue  # optax's EmptyState for the learning-rate scaling
            key = 0 if key == "0" else names.get(key, key)
            out[key] = convert(value) if isinstance(value, dict) else jnp.asarray(value)
        return out

    converted = convert(checkpoint)
    model_state = nnx.state(model, nnx.Param)
    nnx.replace_by_pure_dict(model_state, converted["params"])
    nnx.update(model, model_state)
    optimizer_state = nnx.state(optimizer)
    current = nnx.to_pure_dict(optimizer_state)
    wanted = {{"step": converted["step"], "opt_state": converted["opt_state"]}}
    like = {{"step": current["step"], "opt_state": {{0: current["opt_state"][0]}}}}
    # each leaf in the dtype the optimizer has (the checkpoint's step is int32, nnx's uint32)
    cast = jax.tree.map(lambda new, old: jnp.asarray(new, old.dtype), wanted, like)
    nnx.replace_by_pure_dict(optimizer_state, cast)
    nnx.update(optimizer, optimizer_state)
""",
        """
def load_train_state(model, optimizer, checkpoint):
    names = {"Dense_0": "encoder", "LayerNorm_0": "norm", "Dense_1": "head"}
    # the parameters: assigned variable by variable
    for layer, leaves in checkpoint["params"].items():
        module = getattr(model, names[layer])
        for leaf, value in leaves.items():
            variable = getattr(module, leaf)
            variable[...] = jnp.asarray(value, variable[...].dtype)
    # Adam's state lives in the optimizer's variables: the same, leaf by leaf
    adam = optimizer.opt_state[0]
    saved = checkpoint["opt_state"]["0"]
    for moment in ("mu", "nu"):
        tree = getattr(adam, moment)
        for layer, leaves in saved[moment].items():
            for leaf, value in leaves.items():
                variable = tree[names[layer]][leaf]
                variable[...] = jnp.asarray(value, variable[...].dtype)
    adam.count[...] = jnp.asarray(saved["count"], adam.count[...].dtype)
    optimizer.step[...] = jnp.asarray(checkpoint["step"], optimizer.step[...].dtype)
""",
    ],
}


_WRONG_LABELS = {
    "task1-solution": [
        "Flax's momentum convention",
        "biased running variance",
        "buffers as nnx.Param",
        "buffers updated in eval mode",
        "eps and momentum in BatchNorm1d's order, not the constructor's",
        "stop_gradient on the batch statistics",
        "one-pass variance, which cancels far from zero",
        "the mode kept in deterministic, no use_running_average",
        "eval mode with a fixed eps of 1e-5 instead of self.eps",
        "the count as uint32, as nnx.Optimizer's step",
    ],
    "task2-solution": [
        "the same key at every step",
        "float(loss) at every step",
        "the step as a static argument",
        "the step static, jitted under another name",
        "EMA of the parameters before the update",
        "np.asarray(loss) at every step",
        "bool(jnp.isfinite(loss)) at every step",
        "jax.block_until_ready(loss) at every step",
        "a progress line every fifth step",
        "loss.is_ready() polled at every step",
        "np.isfinite of the loss's first shard at every step",
        "np.isfinite of the parameters at every step",
        "the optimizer state donated to train_step",
        "the noise drawn eagerly around a jitted core",
        "the EMA updated in train, not in train_step",
        "train starts Adam over (jax.jit(TX.init)), the opt_state it is given ignored",
    ],
    "task3-solution": [
        "parameters only, fresh Adam moments",
        "moments without Adam's count and the step",
        "kernels transposed as for PyTorch",
        "the step left in the checkpoint's int32",
        "the optimizer's step taken from Adam's count, the checkpoint's step ignored",
    ],
}
_CORRECT_LABELS = {
    "task1-solution": [
        "increments in place, ddof=1, rsqrt",
        "no stop_gradient on the buffer updates, the count raised with +=",
    ],
    "task2-solution": [
        "optax.incremental_update, jnp.array of the losses",
        "jnp.hstack of the losses, jnp.isfinite on the device",
        "jnp.concatenate of one-element arrays",
    ],
    "task3-solution": [
        "one recursive conversion, each leaf cast to the optimizer's dtype",
        "each variable assigned with [...], the step cast to the optimizer's dtype",
    ],
}

WRONG = {
    f"{task}: {label}": {task: source}
    for task, sources in _WRONG.items()
    for label, source in zip(_WRONG_LABELS[task], sources, strict=True)
}
CORRECT = {
    f"{task}: {label}": {task: source}
    for task, sources in _CORRECT.items()
    for label, source in zip(_CORRECT_LABELS[task], sources, strict=True)
}
