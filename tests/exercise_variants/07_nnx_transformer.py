"""Wrong-but-plausible and alternative-correct answers for solutions/07_nnx_transformer."""

WRONG = {
    "is_causal forgotten": {
        "task1-solution": """
def causal_sdpa(query, key, value, **kwargs):
    return jax.nn.dot_product_attention(query, key, value, mask=kwargs.get("mask"))
""",
    },
    "mask built with the wrong triangle": {
        "task1-solution": """
def causal_sdpa(query, key, value, mask=None, **kwargs):
    scores = jnp.einsum("bqhd,bkhd->bhqk", query, key) / jnp.sqrt(query.shape[-1])
    allowed = jnp.triu(jnp.ones((query.shape[1], key.shape[1]), dtype=bool))
    if mask is not None:
        allowed = allowed & mask
    weights = jax.nn.softmax(jnp.where(allowed, scores, -jnp.inf), axis=-1)
    return jnp.einsum("bhqk,bkhd->bqhd", weights, value)
""",
    },
    "no **kwargs: rejects what MultiHeadAttention passes": {
        "task1-solution": """
def causal_sdpa(query, key, value, mask=None):
    return jax.nn.dot_product_attention(query, key, value, mask=mask, is_causal=True)
""",
    },
    "obeys the is_causal=False that MultiHeadAttention passes by default": {
        "task1-solution": """
def causal_sdpa(query, key, value, mask=None, is_causal=True, **kwargs):
    return jax.nn.dot_product_attention(query, key, value, mask=mask, is_causal=is_causal)
""",
    },
    "extra mask ignored": {
        "task1-solution": """
def causal_sdpa(query, key, value, **kwargs):
    return jax.nn.dot_product_attention(query, key, value, is_causal=True)
""",
    },
    "post-norm block": {
        "task2-solution": """
class Block(nnx.Module):
    def __init__(self, d_model, num_heads, *, attention_fn, rngs):
        self.ln1 = nnx.LayerNorm(d_model, rngs=rngs)
        self.attn = nnx.MultiHeadAttention(
            num_heads=num_heads, in_features=d_model, attention_fn=attention_fn,
            decode=False, rngs=rngs,
        )
        self.ln2 = nnx.LayerNorm(d_model, rngs=rngs)
        self.mlp_in = nnx.Linear(d_model, 4 * d_model, rngs=rngs)
        self.mlp_out = nnx.Linear(4 * d_model, d_model, rngs=rngs)

    def __call__(self, x):
        h = self.ln1(x + self.attn(x))
        return self.ln2(h + self.mlp_out(jax.nn.gelu(self.mlp_in(h))))
""",
    },
    "attention_fn not passed on: default, non-causal attention": {
        "task2-solution": """
class Block(nnx.Module):
    def __init__(self, d_model, num_heads, *, attention_fn, rngs):
        self.ln1 = nnx.LayerNorm(d_model, rngs=rngs)
        self.attn = nnx.MultiHeadAttention(
            num_heads=num_heads, in_features=d_model, decode=False, rngs=rngs
        )
        self.ln2 = nnx.LayerNorm(d_model, rngs=rngs)
        self.mlp_in = nnx.Linear(d_model, 4 * d_model, rngs=rngs)
        self.mlp_out = nnx.Linear(4 * d_model, d_model, rngs=rngs)

    def __call__(self, x):
        h = x + self.attn(self.ln1(x))
        return h + self.mlp_out(jax.nn.gelu(self.mlp_in(self.ln2(h))))
""",
    },
    "relu instead of gelu": {
        "task2-solution": """
class Block(nnx.Module):
    def __init__(self, d_model, num_heads, *, attention_fn, rngs):
        self.ln1 = nnx.LayerNorm(d_model, rngs=rngs)
        self.attn = nnx.MultiHeadAttention(
            num_heads=num_heads, in_features=d_model, attention_fn=attention_fn,
            decode=False, rngs=rngs,
        )
        self.ln2 = nnx.LayerNorm(d_model, rngs=rngs)
        self.mlp_in = nnx.Linear(d_model, 4 * d_model, rngs=rngs)
        self.mlp_out = nnx.Linear(4 * d_model, d_model, rngs=rngs)

    def __call__(self, x):
        h = x + self.attn(self.ln1(x))
        return h + self.mlp_out(jax.nn.relu(self.mlp_in(self.ln2(h))))
""",
    },
    "no residual around the MLP": {
        "task2-solution": """
class Block(nnx.Module):
    def __init__(self, d_model, num_heads, *, attention_fn, rngs):
        self.ln1 = nnx.LayerNorm(d_model, rngs=rngs)
        self.attn = nnx.MultiHeadAttention(
            num_heads=num_heads, in_features=d_model, attention_fn=attention_fn,
            decode=False, rngs=rngs,
        )
        self.ln2 = nnx.LayerNorm(d_model, rngs=rngs)
        self.mlp_in = nnx.Linear(d_model, 4 * d_model, rngs=rngs)
        self.mlp_out = nnx.Linear(4 * d_model, d_model, rngs=rngs)

    def __call__(self, x):
        h = x + self.attn(self.ln1(x))
        return self.mlp_out(jax.nn.gelu(self.mlp_in(self.ln2(h))))
""",
    },
    "summed instead of averaged loss": {
        "task3-solution": """
@nnx.jit
def train_step(model, optimizer, inputs, targets):
    def loss_fn(model):
        logits = model(inputs)
        return optax.softmax_cross_entropy_with_integer_labels(logits, targets).sum()

    loss, grads = nnx.value_and_grad(loss_fn)(model)
    optimizer.update(model, grads)
    return loss
""",
    },
    "returns the loss after the update": {
        "task3-solution": """
@nnx.jit
def train_step(model, optimizer, inputs, targets):
    def loss_fn(model):
        logits = model(inputs)
        return optax.softmax_cross_entropy_with_integer_labels(logits, targets).mean()

    grads = nnx.grad(loss_fn)(model)
    optimizer.update(model, grads)
    return loss_fn(model)
""",
    },
    "targets shifted a second time": {
        "task3-solution": """
@nnx.jit
def train_step(model, optimizer, inputs, targets):
    def loss_fn(model):
        logits = model(inputs)[:, :-1]
        return optax.softmax_cross_entropy_with_integer_labels(logits, targets[:, 1:]).mean()

    loss, grads = nnx.value_and_grad(loss_fn)(model)
    optimizer.update(model, grads)
    return loss
""",
    },
    "gradients computed but never applied": {
        "task3-solution": """
def train_step(model, optimizer, inputs, targets):
    def loss_fn(model):
        logits = model(inputs)
        return optax.softmax_cross_entropy_with_integer_labels(logits, targets).mean()

    loss, grads = nnx.value_and_grad(loss_fn)(model)
    return loss
""",
    },
    "loss turned into a Python float (breaks under nnx.jit)": {
        "task3-solution": """
def train_step(model, optimizer, inputs, targets):
    def loss_fn(model):
        logits = model(inputs)
        return optax.softmax_cross_entropy_with_integer_labels(logits, targets).mean()

    loss, grads = nnx.value_and_grad(loss_fn)(model)
    optimizer.update(model, grads)
    return float(loss)
""",
    },
    "the same key at every step": {
        "task4-solution": """
def sample(next_logits, prompt, n_new, key, temperature=1.0):
    tokens = list(prompt)
    for _ in range(n_new):
        logits = next_logits(jnp.array(tokens))
        if temperature == 0:
            tokens.append(int(jnp.argmax(logits)))
        else:
            tokens.append(int(jax.random.categorical(key, logits / temperature)))
    return tokens[len(prompt):]
""",
    },
    "temperature ignored when sampling": {
        "task4-solution": """
def sample(next_logits, prompt, n_new, key, temperature=1.0):
    tokens = list(prompt)
    for _ in range(n_new):
        logits = next_logits(jnp.array(tokens))
        key, subkey = jax.random.split(key)
        if temperature == 0:
            tokens.append(int(jnp.argmax(logits)))
        else:
            tokens.append(int(jax.random.categorical(subkey, logits)))
    return tokens[len(prompt):]
""",
    },
    "logits multiplied by the temperature": {
        "task4-solution": """
def sample(next_logits, prompt, n_new, key, temperature=1.0):
    tokens = list(prompt)
    for _ in range(n_new):
        logits = next_logits(jnp.array(tokens))
        key, subkey = jax.random.split(key)
        if temperature == 0:
            tokens.append(int(jnp.argmax(logits)))
        else:
            tokens.append(int(jax.random.categorical(subkey, logits * temperature)))
    return tokens[len(prompt):]
""",
    },
    "generated tokens not fed back to the model": {
        "task4-solution": """
def sample(next_logits, prompt, n_new, key, temperature=1.0):
    context = jnp.array(list(prompt))
    new = []
    for _ in range(n_new):
        logits = next_logits(context)
        key, subkey = jax.random.split(key)
        if temperature == 0:
            new.append(int(jnp.argmax(logits)))
        else:
            new.append(int(jax.random.categorical(subkey, logits / temperature)))
    return new
""",
    },
}

CORRECT = {
    "attention written out by hand": {
        "task1-solution": """
def causal_sdpa(query, key, value, **kwargs):
    mask = kwargs.get("mask")
    t, s = query.shape[1], key.shape[1]
    scores = jnp.einsum("bqhd,bkhd->bhqk", query, key) * query.shape[-1] ** -0.5
    allowed = jnp.arange(s)[None, :] <= jnp.arange(t)[:, None]
    if mask is not None:
        allowed = jnp.logical_and(allowed, mask)
    scores = jnp.where(allowed, scores, jnp.finfo(scores.dtype).min)
    return jnp.einsum("bhqk,bkhd->bqhd", jax.nn.softmax(scores, axis=-1), value)
""",
    },
    "causal mask combined by hand, is_causal left off": {
        "task1-solution": """
def causal_sdpa(query, key, value, *, mask=None, **unused):
    causal = jnp.tril(jnp.ones((query.shape[1], key.shape[1]), dtype=bool))
    combined = causal if mask is None else causal & mask
    return jax.nn.dot_product_attention(query, key, value, mask=combined)
""",
    },
    "block with an mlp helper and nnx.gelu": {
        "task2-solution": """
class Block(nnx.Module):
    def __init__(self, d_model, num_heads, *, attention_fn, rngs):
        hidden = 4 * d_model
        self.attn = nnx.MultiHeadAttention(
            num_heads, d_model, qkv_features=d_model, out_features=d_model,
            attention_fn=attention_fn, decode=False, rngs=rngs,
        )
        self.mlp_in = nnx.Linear(d_model, hidden, rngs=rngs)
        self.mlp_out = nnx.Linear(hidden, d_model, rngs=rngs)
        self.ln1, self.ln2 = nnx.LayerNorm(d_model, rngs=rngs), nnx.LayerNorm(d_model, rngs=rngs)

    def mlp(self, x):
        return self.mlp_out(nnx.gelu(self.mlp_in(x)))

    def __call__(self, x):
        x = x + self.attn(self.ln1(x))
        x = x + self.mlp(self.ln2(x))
        return x
""",
    },
    "plain function, grad and loss computed separately, one-hot cross-entropy": {
        "task3-solution": """
def train_step(model, optimizer, inputs, targets):
    def loss_fn(model):
        logits = model(inputs)
        labels = jax.nn.one_hot(targets, logits.shape[-1])
        return jnp.mean(optax.softmax_cross_entropy(logits, labels))

    loss = loss_fn(model)
    grads = nnx.grad(loss_fn)(model)
    optimizer.update(model, grads)
    return loss
""",
    },
    "log_softmax by hand, wrt=nnx.Param spelled out": {
        "task3-solution": """
@nnx.jit
def train_step(model, optimizer, inputs, targets):
    def loss_fn(m):
        logp = jax.nn.log_softmax(m(inputs), axis=-1)
        return -jnp.take_along_axis(logp, targets[..., None], axis=-1).mean()

    loss, grads = nnx.value_and_grad(loss_fn, argnums=nnx.DiffState(0, nnx.Param))(model)
    optimizer.update(model, grads)
    return loss
""",
    },
    "all keys split up front, numpy argmax": {
        "task4-solution": """
def sample(next_logits, prompt, n_new, key, temperature=1.0):
    seq = jnp.asarray(prompt, dtype=jnp.int32)
    keys = jax.random.split(key, max(n_new, 1))
    out = []
    for i in range(n_new):
        logits = next_logits(seq)
        if temperature == 0:
            token = int(np.argmax(np.asarray(logits)))
        else:
            token = int(jax.random.categorical(keys[i], logits * (1.0 / temperature)))
        out.append(token)
        seq = jnp.concatenate([seq, jnp.array([token], dtype=jnp.int32)])
    return out
""",
    },
    "fold_in the step number": {
        "task4-solution": """
def sample(next_logits, prompt, n_new, key, temperature=1.0):
    tokens = [int(t) for t in prompt]
    for step in range(n_new):
        logits = jnp.asarray(next_logits(jnp.array(tokens)))
        if not temperature:
            tokens.append(int(logits.argmax()))
            continue
        probs = jax.nn.softmax(logits / temperature)
        tokens.append(int(jax.random.choice(jax.random.fold_in(key, step), len(probs), p=probs)))
    return tokens[len(prompt):]
""",
    },
}
