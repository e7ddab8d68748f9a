"""Wrong-but-plausible and alternative-correct answers for solutions/12_memory."""

_TABLE = """
def policy_table(params, x, candidates):
    table = {}
    for name, policy in candidates.items():
        grad = jax.jit(jax.grad(partial(stack_loss, policy=policy)))
        compiled = grad.lower(params, x).compile(ANALYSIS_OPTIONS)
        cost = compiled.cost_analysis()
        cost = cost[0] if isinstance(cost, list) else cost
        table[name] = (compiled.memory_analysis().temp_size_in_bytes, cost["flops"])
    return table
"""

_STEP_BYTES = """
def step_bytes(compiled):
    m = compiled.memory_analysis()
    total = m.argument_size_in_bytes + m.output_size_in_bytes + m.temp_size_in_bytes
    return total - m.alias_size_in_bytes
"""

_BISECT = """
def largest_batch(train_step, params, opt_state, budget, donate, limit=1024):
    jitted = jax.jit(train_step, donate_argnums=(0, 1) if donate else ())

    def fits(batch):
        lowered = jitted.lower(params, opt_state, *batch_specs(batch, params))
        return step_bytes(lowered.compile(ANALYSIS_OPTIONS)) <= budget

    low, high = 0, limit
    while low < high:
        middle = (low + high + 1) // 2
        if fits(middle):
            low = middle
        else:
            high = middle - 1
    return low
"""

_WRAP = """
def lora_finetune(model, x, y, rank, steps, learning_rate, rngs, targets=None):
    for i, layer in enumerate(model.layers):
        if targets is None or i in targets:
            model.layers[i] = nnx.LoRA(
                layer.in_features, rank, layer.out_features, base_module=layer, rngs=rngs
            )
"""

_TRAIN_LORA = """
    optimizer = nnx.Optimizer(model, optax.adam(learning_rate), wrt=nnx.LoRAParam)

    @nnx.jit
    def step(model, optimizer, x, y):
        grad_fn = nnx.value_and_grad(mse, argnums=nnx.DiffState(0, nnx.LoRAParam))
        loss, grads = grad_fn(model, x, y)
        optimizer.update(model, grads)
        return loss

    for _ in range(steps):
        step(model, optimizer, x, y)
    return optimizer
"""

WRONG = {
    "task 1: always the least memory (full remat whatever the budget)": {
        "task1-solution": _TABLE
        + """
def pick_policy(table, budget):
    fitting = [name for name, (temp, _) in table.items() if temp <= budget]
    if not fitting:
        return None
    return min(fitting, key=lambda name: table[name][0])
""",
    },
    "task 1: the least recompute, ignoring the budget (no remat)": {
        "task1-solution": _TABLE
        + """
def pick_policy(table, budget):
    return min(table, key=lambda name: table[name][1])
""",
    },
    "task 1: the first candidate that fits, in the table's order": {
        "task1-solution": _TABLE
        + """
def pick_policy(table, budget):
    for name, (temp, _) in table.items():
        if temp <= budget:
            return name
    return None
""",
    },
    "plans cached across calls by (train_step, donate, batch), whatever the params": {
        "task2-solution": """
def step_bytes(compiled):
    m = compiled.memory_analysis()
    return (
        m.argument_size_in_bytes
        + m.output_size_in_bytes
        + m.temp_size_in_bytes
        - m.alias_size_in_bytes
    )


_PLANS = {}  # compiles are expensive: keep each plan, for every later search of this step


def largest_batch(train_step, params, opt_state, budget, donate, limit=1024):
    jitted = jax.jit(train_step, donate_argnums=(0, 1) if donate else ())

    def need(batch):
        key = (train_step, bool(donate), batch)
        if key not in _PLANS:
            lowered = jitted.lower(params, opt_state, *batch_specs(batch, params))
            _PLANS[key] = step_bytes(lowered.compile(ANALYSIS_OPTIONS))
        return _PLANS[key]

    if need(1) > budget:
        return 0
    if need(limit) <= budget:
        return limit
    low, high = 1, limit
    slope = (need(high) - need(low)) / (high - low)
    guess = min(max(low + int((budget - need(low)) / slope), low + 1), high - 2)
    if need(guess) > budget:
        high = guess
    elif need(guess + 1) > budget:
        return guess
    else:
        low = guess + 1
    while high - low > 1:
        middle = (low + high) // 2
        if need(middle) <= budget:
            low = middle
        else:
            high = middle
    return low
""",
    },
    "task 2: counts only the temporaries (ignores parameters and optimizer state)": {
        "task2-solution": """
def step_bytes(compiled):
    return compiled.memory_analysis().temp_size_in_bytes
"""
        + _BISECT,
    },
    "task 2: ignores donation (never subtracts the aliased bytes)": {
        "task2-solution": """
def step_bytes(compiled):
    m = compiled.memory_analysis()
    return m.argument_size_in_bytes + m.output_size_in_bytes + m.temp_size_in_bytes
"""
        + _BISECT,
    },
    "task 2: never donates, whatever `donate` says": {
        "task2-solution": _STEP_BYTES
        + """
def largest_batch(train_step, params, opt_state, budget, donate, limit=1024):
    jitted = jax.jit(train_step)
    low, high = 0, limit
    while low < high:
        middle = (low + high + 1) // 2
        lowered = jitted.lower(params, opt_state, *batch_specs(middle, params))
        if step_bytes(lowered.compile(ANALYSIS_OPTIONS)) <= budget:
            low = middle
        else:
            high = middle - 1
    return low
""",
    },
    "task 2: tries every batch size from 1 up, one compile each": {
        "task2-solution": _STEP_BYTES
        + """
def largest_batch(train_step, params, opt_state, budget, donate, limit=1024):
    jitted = jax.jit(train_step, donate_argnums=(0, 1) if donate else ())
    best = 0
    for batch in range(1, limit + 1):
        lowered = jitted.lower(params, opt_state, *batch_specs(batch, params))
        if step_bytes(lowered.compile(ANALYSIS_OPTIONS)) > budget:
            break
        best = batch
    return best
""",
    },
    "task 2: the line through two plans alone, no compile near its prediction": {
        "task2-solution": _STEP_BYTES
        + """
def largest_batch(train_step, params, opt_state, budget, donate, limit=1024):
    jitted = jax.jit(train_step, donate_argnums=(0, 1) if donate else ())

    def need(batch):
        lowered = jitted.lower(params, opt_state, *batch_specs(batch, params))
        return step_bytes(lowered.compile(ANALYSIS_OPTIONS))

    small, large = 16, 64  # B and 4B, as in the lesson
    slope = (need(large) - need(small)) / (large - small)
    guess = small + int((budget - need(small)) // slope)
    return max(0, min(limit, guess))
""",
    },
    "task 2: a bisection that starts at 1 (never answers 0)": {
        "task2-solution": _STEP_BYTES
        + """
def largest_batch(train_step, params, opt_state, budget, donate, limit=1024):
    jitted = jax.jit(train_step, donate_argnums=(0, 1) if donate else ())

    def fits(batch):
        lowered = jitted.lower(params, opt_state, *batch_specs(batch, params))
        return step_bytes(lowered.compile(ANALYSIS_OPTIONS)) <= budget

    low, high = 1, limit
    while low < high:
        middle = (low + high + 1) // 2
        if fits(middle):
            low = middle
        else:
            high = middle - 1
    return low
""",
    },
    "task 2: a bisection that never reaches the limit itself": {
        "task2-solution": _STEP_BYTES
        + """
def largest_batch(train_step, params, opt_state, budget, donate, limit=1024):
    jitted = jax.jit(train_step, donate_argnums=(0, 1) if donate else ())

    def fits(batch):
        lowered = jitted.lower(params, opt_state, *batch_specs(batch, params))
        return step_bytes(lowered.compile(ANALYSIS_OPTIONS)) <= budget

    low, high = 0, limit  # fits(low), not fits(high): the limit is never tried
    while high - low > 1:
        middle = (low + high) // 2
        if fits(middle):
            low = middle
        else:
            high = middle
    return low
""",
    },
    "task 2 (tampering): silences jax.monitoring's listeners while it compiles 25 times": {
        "task2-solution": _STEP_BYTES
        + """
import jax._src.monitoring as _internals


def largest_batch(train_step, params, opt_state, budget, donate, limit=1024):
    lists = [_internals._event_listeners, _internals._event_duration_secs_listeners]
    saved = [list(listeners) for listeners in lists]
    for listeners in lists:
        listeners.clear()  # nobody counts the compiles below
    try:
        best = 0
        for batch in range(1, min(limit, 25) + 1):
            jitted = jax.jit(train_step, donate_argnums=(0, 1) if donate else ())
            lowered = jitted.lower(params, opt_state, *batch_specs(batch, params))
            if step_bytes(lowered.compile(ANALYSIS_OPTIONS)) <= budget:
                best = batch
        low, high = best, limit + 1
        jitted = jax.jit(train_step, donate_argnums=(0, 1) if donate else ())
        while high - low > 1:
            middle = (low + high) // 2
            lowered = jitted.lower(params, opt_state, *batch_specs(middle, params))
            if step_bytes(lowered.compile(ANALYSIS_OPTIONS)) <= budget:
                low = middle
            else:
                high = middle
        return low
    finally:
        for listeners, kept in zip(lists, saved, strict=True):
            listeners[:] = kept
""",
    },
    "task 3: the optimizer trains every nnx.Param (LoRAParam is one of them)": {
        "task3-solution": _WRAP
        + """
    optimizer = nnx.Optimizer(model, optax.adam(learning_rate), wrt=nnx.Param)

    @nnx.jit
    def step(model, optimizer, x, y):
        loss, grads = nnx.value_and_grad(mse)(model, x, y)
        optimizer.update(model, grads)
        return loss

    for _ in range(steps):
        step(model, optimizer, x, y)
    return optimizer
""",
    },
    "task 3: replaces each layer by a fresh nnx.LoRALinear (new base weights)": {
        "task3-solution": """
def lora_finetune(model, x, y, rank, steps, learning_rate, rngs, targets=None):
    for i, layer in enumerate(model.layers):
        if targets is None or i in targets:
            model.layers[i] = nnx.LoRALinear(
                layer.in_features, layer.out_features, lora_rank=rank, rngs=rngs
            )
"""
        + _TRAIN_LORA,
    },
    "task 3: targets ignored, every layer wrapped": {
        "task3-solution": """
def lora_finetune(model, x, y, rank, steps, learning_rate, rngs, targets=None):
    for i, layer in enumerate(model.layers):
        model.layers[i] = nnx.LoRA(
            layer.in_features, rank, layer.out_features, base_module=layer, rngs=rngs
        )
"""
        + _TRAIN_LORA,
    },
    "task 3: B initialised at random (the wrapped model no longer starts where it was)": {
        "task3-solution": """
def lora_finetune(model, x, y, rank, steps, learning_rate, rngs, targets=None):
    for i, layer in enumerate(model.layers):
        if targets is None or i in targets:
            model.layers[i] = nnx.LoRA(
                layer.in_features, rank, layer.out_features, base_module=layer, rngs=rngs,
                b_initializer=nnx.initializers.normal(0.01),
            )
"""
        + _TRAIN_LORA,
    },
    "task 3: trained functionally, then a fresh nnx.Optimizer returned": {
        "task3-solution": _WRAP
        + """
    tx = optax.adam(learning_rate)
    graphdef, lora, rest = nnx.split(model, nnx.LoRAParam, ...)
    opt_state = tx.init(lora)

    @jax.jit
    def step(lora, opt_state):
        def loss_fn(lora):
            return mse(nnx.merge(graphdef, lora, rest), x, y)

        grads = jax.grad(loss_fn)(lora)
        updates, opt_state = tx.update(grads, opt_state, lora)
        return optax.apply_updates(lora, updates), opt_state

    for _ in range(steps):
        lora, opt_state = step(lora, opt_state)
    nnx.update(model, lora)
    return nnx.Optimizer(model, tx, wrt=nnx.LoRAParam)  # an optimizer, but not the one that trained
""",
    },
    "task 3: the adapters created with an Rngs of their own, not the one given": {
        "task3-solution": _WRAP.replace("rngs=rngs", "rngs=nnx.Rngs(0)") + _TRAIN_LORA,
    },
    "task 3: Adam's learning rate fixed at 1e-2, the argument ignored": {
        "task3-solution": _WRAP
        + _TRAIN_LORA.replace("optax.adam(learning_rate)", "optax.adam(1e-2)"),
    },
    "task 3: each step on the first 32 examples, not the whole (x, y)": {
        "task3-solution": _WRAP
        + _TRAIN_LORA.replace(
            "\n        step(model, optimizer, x, y)",
            "\n        step(model, optimizer, x[:32], y[:32])",
        ),
    },
    "task 4: the merged layer keeps a fresh layer's zero bias, not the base's": {
        "task4-solution": """
def merge_lora(model):
    merged = nnx.clone(model)
    for i, layer in enumerate(merged.layers):
        if isinstance(layer, nnx.LoRA):
            base = layer.base_module
            plain = nnx.Linear(base.in_features, base.out_features, rngs=nnx.Rngs(0))
            plain.kernel[...] = base.kernel[...] + jnp.matmul(
                layer.lora_a[...], layer.lora_b[...], precision="highest"
            )
            merged.layers[i] = plain
    return merged
""",
    },
    "task 4: merged in place (the adapted model loses its adapters)": {
        "task4-solution": """
def merge_lora(model):
    for i, layer in enumerate(model.layers):
        if isinstance(layer, nnx.LoRA):
            base = layer.base_module
            base.kernel[...] = base.kernel[...] + jnp.matmul(
                layer.lora_a[...], layer.lora_b[...], precision="highest"
            )
            model.layers[i] = base
    return model
""",
    },
    "task 4: the adapters dropped (only the base weights kept)": {
        "task4-solution": """
def merge_lora(model):
    merged = nnx.clone(model)
    for i, layer in enumerate(merged.layers):
        if isinstance(layer, nnx.LoRA):
            merged.layers[i] = layer.base_module
    return merged
""",
    },
    "task 4: A B added to the base kernel, the wrapper kept (the correction counted twice)": {
        "task4-solution": """
def merge_lora(model):
    merged = nnx.clone(model)
    for layer in merged.layers:
        if isinstance(layer, nnx.LoRA):
            base = layer.base_module
            base.kernel[...] = base.kernel[...] + layer.lora_a[...] @ layer.lora_b[...]
    return merged
""",
    },
    "task 4: a new Net whose plain layers are freshly initialised, not copied": {
        "task4-solution": """
def merge_lora(model):
    sizes = [model.layers[0].in_features] + [
        (layer.base_module if isinstance(layer, nnx.LoRA) else layer).out_features
        for layer in model.layers
    ]
    merged = Net(sizes, rngs=nnx.Rngs(0))
    for i, layer in enumerate(model.layers):
        if isinstance(layer, nnx.LoRA):
            base = layer.base_module
            merged.layers[i].kernel[...] = base.kernel[...] + jnp.matmul(
                layer.lora_a[...], layer.lora_b[...], precision="highest"
            )
            merged.layers[i].bias[...] = base.bias[...]
    return merged
""",
    },
    "task 4: the plain layers shared with the adapted model, not copied": {
        "task4-solution": """
def merge_lora(model):
    merged = nnx.clone(model)
    for i, layer in enumerate(model.layers):
        if isinstance(layer, nnx.LoRA):
            base = layer.base_module
            plain = nnx.Linear(base.in_features, base.out_features, rngs=nnx.Rngs(0))
            plain.kernel[...] = base.kernel[...] + jnp.matmul(
                layer.lora_a[...], layer.lora_b[...], precision="highest"
            )
            plain.bias[...] = base.bias[...]
            merged.layers[i] = plain
        else:
            merged.layers[i] = layer  # the same object as in model
    return merged
""",
    },
    "plans cached between calls by shapes, whatever the train_step": {
        "task2-solution": """
_PLANS = {}  # plans kept between calls: the same shapes compile to the same plan


def step_bytes(compiled):
    m = compiled.memory_analysis()
    return (
        m.argument_size_in_bytes
        + m.output_size_in_bytes
        + m.temp_size_in_bytes
        - m.alias_size_in_bytes
    )


def largest_batch(train_step, params, opt_state, budget, donate, limit=1024):
    jitted = jax.jit(train_step, donate_argnums=(0, 1) if donate else ())
    shapes = tuple((a.shape, str(a.dtype)) for a in jax.tree.leaves((params, opt_state)))

    def need(batch):
        key = (shapes, donate, batch)
        if key not in _PLANS:
            lowered = jitted.lower(params, opt_state, *batch_specs(batch, params))
            _PLANS[key] = step_bytes(lowered.compile(ANALYSIS_OPTIONS))
        return _PLANS[key]

    if need(1) > budget:
        return 0
    if need(limit) <= budget:
        return limit
    low, high = 1, limit
    while high - low > 1:
        middle = (low + high) // 2
        if need(middle) <= budget:
            low = middle
        else:
            high = middle
    return low
""",
    },
    "adamw instead of adam: its weight decay moves A": {
        "task3-solution": """
def lora_finetune(model, x, y, rank, steps, learning_rate, rngs, targets=None):
    for i, layer in enumerate(model.layers):
        if targets is None or i in targets:
            model.layers[i] = nnx.LoRA(
                layer.in_features, rank, layer.out_features, base_module=layer, rngs=rngs
            )
    optimizer = nnx.Optimizer(model, optax.adamw(learning_rate), wrt=nnx.LoRAParam)

    @nnx.jit
    def step(model, optimizer, x, y):
        grad_fn = nnx.value_and_grad(mse, argnums=nnx.DiffState(0, nnx.LoRAParam))
        loss, grads = grad_fn(model, x, y)
        optimizer.update(model, grads)
        return loss

    for _ in range(steps):
        step(model, optimizer, x, y)
    return optimizer
""",
    },
    "an empty set of targets taken as every layer": {
        "task3-solution": """
def lora_finetune(model, x, y, rank, steps, learning_rate, rngs, targets=None):
    for i, layer in enumerate(model.layers):
        if not targets or i in targets:  # no targets: every layer
            model.layers[i] = nnx.LoRA(
                layer.in_features, rank, layer.out_features, base_module=layer, rngs=rngs
            )
    optimizer = nnx.Optimizer(model, optax.adam(learning_rate), wrt=nnx.LoRAParam)

    @nnx.jit
    def step(model, optimizer, x, y):
        grad_fn = nnx.value_and_grad(mse, argnums=nnx.DiffState(0, nnx.LoRAParam))
        loss, grads = grad_fn(model, x, y)
        optimizer.update(model, grads)
        return loss

    for _ in range(steps):
        step(model, optimizer, x, y)
    return optimizer
""",
    },
    "an empty set of targets: nothing returned": {
        "task3-solution": """
def lora_finetune(model, x, y, rank, steps, learning_rate, rngs, targets=None):
    chosen = range(len(model.layers)) if targets is None else sorted(targets)
    for i in chosen:
        layer = model.layers[i]
        model.layers[i] = nnx.LoRA(
            layer.in_features, rank, layer.out_features, base_module=layer, rngs=rngs
        )
    optimizer = nnx.Optimizer(model, optax.adam(learning_rate), wrt=nnx.LoRAParam)
    if not chosen:  # no adapters: nothing to train, skip the loop
        return None

    @nnx.jit
    def step(model, optimizer, x, y):
        grads = nnx.grad(mse, argnums=nnx.DiffState(0, nnx.LoRAParam))(model, x, y)
        optimizer.update(model, grads)

    for _ in range(steps):
        step(model, optimizer, x, y)
    return optimizer
""",
    },
    "largest_batch rebuilds Adam's state from params instead of the opt_state given": {
        "task2-solution": """
def step_bytes(compiled):
    m = compiled.memory_analysis()
    return (
        m.argument_size_in_bytes
        + m.output_size_in_bytes
        + m.temp_size_in_bytes
        - m.alias_size_in_bytes
    )


def largest_batch(train_step, params, opt_state, budget, donate, limit=1024):
    # nothing allocated: the shapes of the parameters and of Adam's state are enough
    param_specs = jax.tree.map(lambda a: jax.ShapeDtypeStruct(a.shape, a.dtype), params)
    state_specs = jax.eval_shape(TX.init, param_specs)
    jitted = jax.jit(train_step, donate_argnums=(0, 1) if donate else ())
    plans = {}

    def need(batch):
        if batch not in plans:
            lowered = jitted.lower(param_specs, state_specs, *batch_specs(batch, params))
            plans[batch] = step_bytes(lowered.compile(ANALYSIS_OPTIONS))
        return plans[batch]

    if need(1) > budget:
        return 0
    if need(limit) <= budget:
        return limit
    low, high = 1, limit
    while high - low > 1:
        middle = (low + high) // 2
        if need(middle) <= budget:
            low = middle
        else:
            high = middle
    return low
""",
    },
    "the search capped at 1024 whatever the limit": {
        "task2-solution": """
def step_bytes(compiled):
    m = compiled.memory_analysis()
    return (
        m.argument_size_in_bytes
        + m.output_size_in_bytes
        + m.temp_size_in_bytes
        - m.alias_size_in_bytes
    )


def largest_batch(train_step, params, opt_state, budget, donate, limit=1024):
    jitted = jax.jit(train_step, donate_argnums=(0, 1) if donate else ())
    plans = {}

    def need(batch):
        if batch not in plans:
            lowered = jitted.lower(params, opt_state, *batch_specs(batch, params))
            plans[batch] = step_bytes(lowered.compile(ANALYSIS_OPTIONS))
        return plans[batch]

    high = min(limit, 1024)  # a bisection over 1 ... 1024 needs 11 compiles: stay inside it
    if need(1) > budget:
        return 0
    if need(high) <= budget:
        return high
    low = 1
    while high - low > 1:
        middle = (low + high) // 2
        if need(middle) <= budget:
            low = middle
        else:
            high = middle
    return low
""",
    },
    "LoRA's A drawn as in the paper (normal, 0.02), not nnx.LoRA's default": {
        "task3-solution": """
def lora_finetune(model, x, y, rank, steps, learning_rate, rngs, targets=None):
    # as in the LoRA paper: A Gaussian, B zero
    for i, layer in enumerate(model.layers):
        if targets is None or i in targets:
            model.layers[i] = nnx.LoRA(
                layer.in_features, rank, layer.out_features, base_module=layer, rngs=rngs,
                a_initializer=nnx.initializers.normal(stddev=0.02),
                b_initializer=nnx.initializers.zeros_init(),
            )
    optimizer = nnx.Optimizer(model, optax.adam(learning_rate), wrt=nnx.LoRAParam)

    @nnx.jit
    def step(model, optimizer, x, y):
        grad_fn = nnx.value_and_grad(mse, argnums=nnx.DiffState(0, nnx.LoRAParam))
        loss, grads = grad_fn(model, x, y)
        optimizer.update(model, grads)
        return loss

    for _ in range(steps):
        step(model, optimizer, x, y)
    return optimizer
""",
    },
    "step_bytes adds the generated code's size (0 on a CPU, not on a GPU)": {
        "task2-solution": """
def step_bytes(compiled):
    m = compiled.memory_analysis()
    # everything resident while the program runs: its code too
    return (
        m.generated_code_size_in_bytes
        + m.argument_size_in_bytes
        + m.output_size_in_bytes
        + m.temp_size_in_bytes
        - m.alias_size_in_bytes
    )


def largest_batch(train_step, params, opt_state, budget, donate, limit=1024):
    jitted = jax.jit(train_step, donate_argnums=(0, 1) if donate else ())
    plans = {}

    def need(batch):
        if batch not in plans:
            lowered = jitted.lower(params, opt_state, *batch_specs(batch, params))
            plans[batch] = step_bytes(lowered.compile(ANALYSIS_OPTIONS))
        return plans[batch]

    if need(1) > budget:
        return 0
    if need(limit) <= budget:
        return limit
    low, high = 1, limit
    while high - low > 1:
        middle = (low + high) // 2
        if need(middle) <= budget:
            low = middle
        else:
            high = middle
    return low
""",
    },
    "LoRA's A drawn with lecun_normal, Linear's default, not nnx.LoRA's He-uniform": {
        "task3-solution": """
def lora_finetune(model, x, y, rank, steps, learning_rate, rngs, targets=None):
    # A like a fresh nnx.Linear kernel (Flax's default, LeCun normal); B zero
    for i, layer in enumerate(model.layers):
        if targets is None or i in targets:
            model.layers[i] = nnx.LoRA(
                layer.in_features, rank, layer.out_features, base_module=layer, rngs=rngs,
                a_initializer=nnx.initializers.lecun_normal(),
            )
    optimizer = nnx.Optimizer(model, optax.adam(learning_rate), wrt=nnx.LoRAParam)

    @nnx.jit
    def step(model, optimizer, x, y):
        grad_fn = nnx.value_and_grad(mse, argnums=nnx.DiffState(0, nnx.LoRAParam))
        loss, grads = grad_fn(model, x, y)
        optimizer.update(model, grads)
        return loss

    for _ in range(steps):
        step(model, optimizer, x, y)
    return optimizer
""",
    },
    "Adam with a cosine decay from learning_rate: the first step right, the later ones smaller": {
        "task3-solution": """
def lora_finetune(model, x, y, rank, steps, learning_rate, rngs, targets=None):
    # adapters as nnx.LoRA makes them; the learning rate decays to 0 over the fine-tune (cosine)
    for i, layer in enumerate(model.layers):
        if targets is None or i in targets:
            model.layers[i] = nnx.LoRA(
                layer.in_features, rank, layer.out_features, base_module=layer, rngs=rngs,
            )
    schedule = optax.cosine_decay_schedule(learning_rate, max(steps, 1))
    optimizer = nnx.Optimizer(model, optax.adam(schedule), wrt=nnx.LoRAParam)

    @nnx.jit
    def step(model, optimizer, x, y):
        grad_fn = nnx.value_and_grad(mse, argnums=nnx.DiffState(0, nnx.LoRAParam))
        loss, grads = grad_fn(model, x, y)
        optimizer.update(model, grads)
        return loss

    for _ in range(steps):
        step(model, optimizer, x, y)
    return optimizer
""",
    },
    "task 3: Adam after a clip of the global norm to 1": {
        "task3-solution": """
def lora_finetune(model, x, y, rank, steps, learning_rate, rngs, targets=None):
    for i, layer in enumerate(model.layers):
        if targets is None or i in targets:
            model.layers[i] = nnx.LoRA(
                layer.in_features, rank, layer.out_features, base_module=layer, rngs=rngs
            )
    # Adam, with the usual guard against exploding gradients
    tx = optax.chain(optax.clip_by_global_norm(1.0), optax.adam(learning_rate))
    optimizer = nnx.Optimizer(model, tx, wrt=nnx.LoRAParam)

    @nnx.jit
    def step(model, optimizer, x, y):
        grad_fn = nnx.value_and_grad(mse, argnums=nnx.DiffState(0, nnx.LoRAParam))
        loss, grads = grad_fn(model, x, y)
        optimizer.update(model, grads)
        return loss

    for _ in range(steps):
        step(model, optimizer, x, y)
    return optimizer
""",
    },
    "task 1: pick_policy deletes what does not fit from its table": {
        "task1-solution": """
def policy_table(params, x, candidates):
    table = {}
    for name, policy in candidates.items():
        grad = jax.jit(jax.grad(partial(stack_loss, policy=policy)))
        compiled = grad.lower(params, x).compile(ANALYSIS_OPTIONS)
        cost = compiled.cost_analysis()
        cost = cost[0] if isinstance(cost, list) else cost
        table[name] = (compiled.memory_analysis().temp_size_in_bytes, cost["flops"])
    return table


def pick_policy(table, budget):
    for name in list(table):  # drop what does not fit
        if table[name][0] > budget:
            del table[name]
    if not table:
        return None
    return min(table, key=lambda name: table[name][1])
""",
    },
    "task 3: Adam on the summed squared error instead of mse": {
        "task3-solution": """
def lora_finetune(model, x, y, rank, steps, learning_rate, rngs, targets=None):
    for i, layer in enumerate(model.layers):
        if targets is None or i in targets:
            model.layers[i] = nnx.LoRA(
                layer.in_features, rank, layer.out_features, base_module=layer, rngs=rngs
            )
    optimizer = nnx.Optimizer(model, optax.adam(learning_rate), wrt=nnx.LoRAParam)

    def sse(model, x, y):  # the summed squared error
        return jnp.sum((model(x) - y) ** 2)

    @nnx.jit
    def step(model, optimizer, x, y):
        grad_fn = nnx.value_and_grad(sse, argnums=nnx.DiffState(0, nnx.LoRAParam))
        loss, grads = grad_fn(model, x, y)
        optimizer.update(model, grads)
        return loss

    for _ in range(steps):
        step(model, optimizer, x, y)
    return optimizer
""",
    },
    "task 3: Adam with b2=0.95": {
        "task3-solution": """
def lora_finetune(model, x, y, rank, steps, learning_rate, rngs, targets=None):
    for i, layer in enumerate(model.layers):
        if targets is None or i in targets:
            model.layers[i] = nnx.LoRA(
                layer.in_features, rank, layer.out_features, base_module=layer, rngs=rngs
            )
    optimizer = nnx.Optimizer(model, optax.adam(learning_rate, b2=0.95), wrt=nnx.LoRAParam)

    def sse(model, x, y):  # the summed squared error
        return jnp.sum((model(x) - y) ** 2)

    @nnx.jit
    def step(model, optimizer, x, y):
        grad_fn = nnx.value_and_grad(mse, argnums=nnx.DiffState(0, nnx.LoRAParam))
        loss, grads = grad_fn(model, x, y)
        optimizer.update(model, grads)
        return loss

    for _ in range(steps):
        step(model, optimizer, x, y)
    return optimizer
""",
    },
    "largest_batch returns a float (floor division by a float slope)": {
        "task2-solution": _STEP_BYTES
        + """

def largest_batch(train_step, params, opt_state, budget, donate, limit=1024):
    jitted = jax.jit(train_step, donate_argnums=(0, 1) if donate else ())
    plans = {}

    def need(batch):
        batch = int(batch)  # shapes need ints
        if batch not in plans:
            lowered = jitted.lower(params, opt_state, *batch_specs(batch, params))
            plans[batch] = step_bytes(lowered.compile(ANALYSIS_OPTIONS))
        return plans[batch]

    if need(1) > budget:
        return 0
    if need(limit) <= budget:
        return limit
    low, high = 1, limit
    slope = (need(high) - need(low)) / (high - low)
    # floor division by a float slope: the guess is a float (299.0), and so is what follows
    guess = min(max(low + (budget - need(low)) // slope, low + 1), high - 2)
    if need(guess) > budget:
        high = guess
    elif need(guess + 1) > budget:
        return guess
    else:
        low = guess + 1
    while high - low > 1:
        middle = (low + high) // 2
        if need(middle) <= budget:
            low = middle
        else:
            high = middle
    return low
""",
    },
    "merged kernels stored in float16 for serving": {
        "task4-solution": """
def merge_lora(model):
    # for serving: the merged kernels stored in float16 (half the memory), computed in float32
    merged = nnx.clone(model)
    for i, layer in enumerate(merged.layers):
        if isinstance(layer, nnx.LoRA):
            base = layer.base_module
            kernel = base.kernel[...] + jnp.matmul(
                layer.lora_a[...], layer.lora_b[...], precision="highest"
            )
            plain = nnx.Linear(
                base.in_features, base.out_features,
                param_dtype=jnp.float16, dtype=jnp.float32, rngs=nnx.Rngs(0),
            )
            plain.kernel[...] = kernel.astype(jnp.float16)
            plain.bias[...] = base.bias[...].astype(jnp.float16)
            merged.layers[i] = plain
    return merged
""",
    },
}

CORRECT = {
    "task 1: compiled through jax.jit(...).trace(...), then sorted by FLOPs": {
        "task1-solution": """
def policy_table(params, x, candidates):
    out = {}
    for name in candidates:
        fn = lambda p, v, policy=candidates[name]: stack_loss(p, v, policy)  # noqa: E731
        compiled = jax.jit(jax.grad(fn)).trace(params, x).lower().compile(ANALYSIS_OPTIONS)
        costs = compiled.cost_analysis()
        flops = (costs if isinstance(costs, dict) else costs[0])["flops"]
        out[name] = (compiled.memory_analysis().temp_size_in_bytes, flops)
    return out


def pick_policy(table, budget):
    for name, (temp, _) in sorted(table.items(), key=lambda item: (item[1][1], item[1][0])):
        if temp <= budget:
            return name
    return None
""",
    },
    "task 2: a line through two plans, then steps to the exact answer": {
        "task2-solution": """
def step_bytes(compiled):
    stats = compiled.memory_analysis()
    return (
        stats.argument_size_in_bytes - stats.alias_size_in_bytes
        + stats.output_size_in_bytes + stats.temp_size_in_bytes
    )


def largest_batch(train_step, params, opt_state, budget, donate, limit=1024):
    jitted = jax.jit(train_step, donate_argnums=(0, 1) if donate else ())
    cache = {}

    def need(b):
        if b not in cache:
            lowered = jitted.lower(params, opt_state, *batch_specs(b, params))
            cache[b] = step_bytes(lowered.compile(ANALYSIS_OPTIONS))
        return cache[b]

    if need(1) > budget:
        return 0
    lo_b, hi_b = 1, limit
    if need(limit) <= budget:
        return limit
    while hi_b - lo_b > 1:  # need(lo_b) fits, need(hi_b) does not: secant, then bisect
        slope = (need(hi_b) - need(lo_b)) / (hi_b - lo_b)
        guess = lo_b + int((budget - need(lo_b)) // max(slope, 1e-9))
        guess = min(max(guess, lo_b + 1), hi_b - 1)
        if need(guess) <= budget:
            lo_b = guess
        else:
            hi_b = guess
        middle = (lo_b + hi_b) // 2
        if lo_b < middle < hi_b:
            if need(middle) <= budget:
                lo_b = middle
            else:
                hi_b = middle
    return lo_b
""",
    },
    "task 2: a plain bisection over 0 ... limit": {
        "task2-solution": _STEP_BYTES + _BISECT,
    },
    "task 3: gradients for every Param, filtered by the optimizer; adapters built first": {
        "task3-solution": """
def lora_finetune(model, x, y, rank, steps, learning_rate, rngs, targets=None):
    chosen = range(len(model.layers)) if targets is None else sorted(targets)
    wrapped = {
        index: nnx.LoRA(
            model.layers[index].in_features, rank, model.layers[index].out_features,
            base_module=model.layers[index], rngs=rngs,
        )
        for index in chosen
    }
    for index, adapter in wrapped.items():
        model.layers[index] = adapter
    optimizer = nnx.Optimizer(model, optax.adam(learning_rate), wrt=nnx.LoRAParam)
    train = nnx.jit(
        lambda m, o, a, b: o.update(m, nnx.grad(mse)(m, a, b))  # the optimizer keeps LoRA only
    )
    for _ in range(steps):
        train(model, optimizer, x, y)
    return optimizer
""",
    },
    "task 4: split, copy every array, merge; the kernel with jnp.dot at HIGHEST": {
        "task4-solution": """
def merge_lora(model):
    graphdef, state = nnx.split(model)
    merged = nnx.merge(graphdef, jax.tree.map(jnp.array, state))  # jnp.array copies
    for i in range(len(merged.layers)):
        layer = merged.layers[i]
        if not isinstance(layer, nnx.LoRA):
            continue
        base = layer.base_module
        delta = jnp.dot(layer.lora_a[...], layer.lora_b[...],
                        precision=jax.lax.Precision.HIGHEST)
        plain = nnx.Linear(base.in_features, base.out_features, rngs=nnx.Rngs(1))
        plain.kernel[...] = base.kernel[...] + delta
        plain.bias[...] = jnp.array(base.bias[...])
        merged.layers[i] = plain
    return merged
""",
    },
    "task 1: one module-level jit, the policy static; first by (flops, bytes) that fits": {
        "task1-solution": """
_grad_of_loss = jax.jit(jax.grad(stack_loss), static_argnums=2)


def policy_table(params, x, candidates):
    out = {}
    for name in candidates:
        compiled = _grad_of_loss.lower(params, x, candidates[name]).compile(ANALYSIS_OPTIONS)
        costs = compiled.cost_analysis()
        if isinstance(costs, (list, tuple)):
            costs = costs[0]
        out[name] = (compiled.memory_analysis().temp_size_in_bytes, costs["flops"])
    return out


def pick_policy(table, budget):
    ranked = sorted(table.items(), key=lambda item: (item[1][1], item[1][0]))
    for name, (temp_bytes, _flops) in ranked:
        if temp_bytes <= budget:
            return name
    return None
""",
    },
    "task 3: adapters made from the last chosen layer down, trained without nnx.jit": {
        "task3-solution": """
def lora_finetune(model, x, y, rank, steps, learning_rate, rngs, targets=None):
    chosen = range(len(model.layers)) if targets is None else targets
    # adapters built from the last chosen layer down
    for i in sorted(chosen, reverse=True):
        layer = model.layers[i]
        model.layers[i] = nnx.LoRA(
            in_features=layer.in_features,
            lora_rank=rank,
            out_features=layer.out_features,
            base_module=layer,
            rngs=rngs,
        )
    optimizer = nnx.Optimizer(model, optax.adam(learning_rate), wrt=nnx.LoRAParam)
    adapters_only = nnx.DiffState(0, nnx.LoRAParam)
    for _ in range(steps):  # eager steps, no jit
        grads = nnx.grad(mse, argnums=adapters_only)(model, x, y)
        optimizer.update(model, grads)
    return optimizer
""",
    },
    "task 4: a deep copy whose base layers get kernel += A @ B": {
        "task4-solution": """
import copy


def merge_lora(model):
    merged = copy.deepcopy(model)  # nothing shared with the adapted model
    for i, layer in enumerate(merged.layers):
        if isinstance(layer, nnx.LoRA):
            base = layer.base_module  # the copy's own Linear: fold the adapter into it
            base.kernel[...] = base.kernel[...] + layer.lora_a[...] @ layer.lora_b[...]
            merged.layers[i] = base
    return merged
""",
    },
}
