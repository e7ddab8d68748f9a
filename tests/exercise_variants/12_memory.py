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
    "task 3: the optimizer trains every nnx.Param (LoRAParam is one of them)": {
        "task3-solution": """
def lora_finetune(model, x, y, rank, steps, learning_rate, rngs):
    for i, layer in enumerate(model.layers):
        model.layers[i] = nnx.LoRA(
            layer.in_features, rank, layer.out_features, base_module=layer, rngs=rngs
        )
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
def lora_finetune(model, x, y, rank, steps, learning_rate, rngs):
    for i, layer in enumerate(model.layers):
        model.layers[i] = nnx.LoRALinear(
            layer.in_features, layer.out_features, lora_rank=rank, rngs=rngs
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
    "task 3: adapts only the last layer": {
        "task3-solution": """
def lora_finetune(model, x, y, rank, steps, learning_rate, rngs):
    last = model.layers[-1]
    model.layers[-1] = nnx.LoRA(
        last.in_features, rank, last.out_features, base_module=last, rngs=rngs
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
    "task 3: gradients for every Param, filtered by the optimizer; adapters built first": {
        "task3-solution": """
def lora_finetune(model, x, y, rank, steps, learning_rate, rngs):
    wrapped = [
        nnx.LoRA(lin.in_features, rank, lin.out_features, base_module=lin, rngs=rngs)
        for lin in model.layers
    ]
    for index, adapter in enumerate(wrapped):
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
}
