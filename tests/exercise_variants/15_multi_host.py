"""Wrong-but-plausible and alternative-correct answers for solutions/15_multi_host."""

# Task 1: the checks and the global batch as the task defines them; the process's share varies.
_ROWS_HEAD = """
def local_rows(
    step, process_index, process_count, *, dataset_size, global_batch, seed, model_group=1
):
    if process_count % model_group:
        raise ValueError("uneven model groups")
    groups = process_count // model_group
    if global_batch % groups:
        raise ValueError("uneven split of the batch")
    epoch, position = divmod(step, dataset_size // global_batch)
    order = np.random.default_rng([seed, epoch]).permutation(dataset_size)
    batch = order[position * global_batch : (position + 1) * global_batch]
"""

# Task 3: the script around the part each variant changes.
_SCRIPT_HEAD = """%%writefile resumable.py
import os
import sys

import trainlib

import jax

RUN = trainlib.load_run(sys.argv[1])
"""
_INITIALIZE = """
jax.distributed.initialize(
    coordinator_address=os.environ["JAX_COORDINATOR_ADDRESS"],
    num_processes=int(os.environ["NUM_PROCESSES"]),
    process_id=int(os.environ["PROCESS_ID"]),
    heartbeat_timeout_seconds=5,
)
"""
_MANAGER = """
import orbax.checkpoint as ocp

t = trainlib.Training(RUN)
manager = ocp.CheckpointManager(
    RUN["checkpoints"], options=ocp.CheckpointManagerOptions(save_interval_steps=RUN["save_every"])
)
"""
_RESTORE = """
done = manager.latest_step()
if done is None:
    done, state, data_key = 0, t.init_state(), t.first_data_key()
else:
    restored = manager.restore(
        done,
        args=ocp.args.Composite(
            state=ocp.args.StandardRestore(t.abstract_state),
            data=ocp.args.StandardRestore({"key": t.abstract_data_key}),
        ),
    )
    state, data_key = restored["state"], restored["data"]["key"]
"""
_LOOP = """
while done < RUN["steps"]:
    data_key, x, y = t.next_batch(data_key)
    state, loss = t.train_step(state, x, y)
    t.report(done, loss)
    done += 1
    manager.save(
        done,
        args=ocp.args.Composite(
            state=ocp.args.StandardSave(state), data=ocp.args.StandardSave({"key": data_key})
        ),
    )
    if manager.reached_preemption(done):
        break
manager.wait_until_finished()
manager.close()
jax.distributed.shutdown()
"""

WRONG = {
    "the latest checkpoint taken as the last step folder by name ('9' after '12')": {
        "task3-solution": _SCRIPT_HEAD
        + _INITIALIZE
        + _MANAGER
        + _RESTORE.replace(
            "done = manager.latest_step()\n",
            "folder = RUN['checkpoints']\n"
            "names = sorted(n for n in os.listdir(folder) if n.isdigit()) "
            "if os.path.isdir(folder) else []\n"
            "done = int(names[-1]) if names else None\n",
        )
        + _LOOP,
    },
    "the batch's rows dealt out one by one (rows[p::P]), not in blocks": {
        "task1-solution": _ROWS_HEAD + "    return batch[process_index // model_group :: groups]\n",
    },
    "model groups ignored: every process reads a block of its own": {
        "task1-solution": _ROWS_HEAD
        + """    share = global_batch // process_count
    return batch[process_index * share : (process_index + 1) * share]
""",
    },
    "a shuffle per process (seed + process_index)": {
        "task1-solution": _ROWS_HEAD.replace("[seed, epoch]", "[seed + process_index, epoch]")
        + """    share, group = global_batch // groups, process_index // model_group
    return batch[group * share : (group + 1) * share]
""",
    },
    "one stream over the epochs: the incomplete last batch is not dropped": {
        "task1-solution": """
def local_rows(
    step, process_index, process_count, *, dataset_size, global_batch, seed, model_group=1
):
    if process_count % model_group:
        raise ValueError("uneven model groups")
    groups = process_count // model_group
    if global_batch % groups:
        raise ValueError("uneven split of the batch")
    epoch, offset = divmod(step * global_batch, dataset_size)
    order = np.random.default_rng([seed, epoch]).permutation(dataset_size)
    batch = np.resize(order[offset:], global_batch)
    share, group = global_batch // groups, process_index // model_group
    return batch[group * share : (group + 1) * share]
""",
    },
    "the devices reshaped in the order given, node_of ignored": {
        "task2-solution": """
def hybrid_mesh(devices, node_of, model):
    return Mesh(np.array(devices).reshape(-1, model), ("data", "model"))
""",
    },
    "'model' across the nodes: the grid built node-major, then transposed": {
        "task2-solution": """
def hybrid_mesh(devices, node_of, model):
    nodes = {}
    for device in sorted(devices, key=lambda d: d.id):
        nodes.setdefault(node_of(device), []).append(device)
    grid = np.array([nodes[n] for n in sorted(nodes)]).T  # (devices per node, nodes)
    return Mesh(grid.reshape(-1, model), ("data", "model"))
""",
    },
    "sorted by node, but no check that a model group fits in a node": {
        "task2-solution": """
def hybrid_mesh(devices, node_of, model):
    ordered = sorted(devices, key=lambda d: (node_of(d), d.id))
    return Mesh(np.array(ordered).reshape(-1, model), ("data", "model"))
""",
    },
    "the data stream's key not checkpointed: it restarts from first_data_key()": {
        "task3-solution": _SCRIPT_HEAD
        + _INITIALIZE
        + _MANAGER
        + """
done = manager.latest_step()
if done is None:
    done, state = 0, t.init_state()
else:
    state = manager.restore(
        done, args=ocp.args.Composite(state=ocp.args.StandardRestore(t.abstract_state))
    )["state"]
data_key = t.first_data_key()
while done < RUN["steps"]:
    data_key, x, y = t.next_batch(data_key)
    state, loss = t.train_step(state, x, y)
    t.report(done, loss)
    done += 1
    manager.save(done, args=ocp.args.Composite(state=ocp.args.StandardSave(state)))
    if manager.reached_preemption(done):
        break
manager.wait_until_finished()
manager.close()
jax.distributed.shutdown()
""",
    },
    "JAX's default heartbeat timeout: the survivor waits 100 s": {
        "task3-solution": _SCRIPT_HEAD
        + _INITIALIZE.replace("    heartbeat_timeout_seconds=5,\n", "")
        + _MANAGER
        + _RESTORE
        + _LOOP,
    },
    # held-out round 34: the text said "the graders allow 30", and a learner set 30; the
    # survivor noticed after 23.0 to 25.2 s in seven runs (20 s: 12.6 to 20.6 s)
    "a heartbeat timeout of 30 s: the job fails after about 24 s, not within 20": {
        "task3-solution": _SCRIPT_HEAD
        + _INITIALIZE.replace("heartbeat_timeout_seconds=5,", "heartbeat_timeout_seconds=30,")
        + _MANAGER
        + _RESTORE
        + _LOOP,
    },
    "SIGTERM not acted on: the job trains on to the end": {
        "task3-solution": _SCRIPT_HEAD
        + _INITIALIZE
        + _MANAGER
        + _RESTORE
        + _LOOP.replace("    if manager.reached_preemption(done):\n        break\n", ""),
    },
    "a restart recomputes the steps done from init_state() instead of loading them": {
        "task3-solution": _SCRIPT_HEAD
        + _INITIALIZE
        + _MANAGER
        + """
done = manager.latest_step() or 0
state, data_key = t.init_state(), t.first_data_key()
for _ in range(done):  # bit for bit the same state, recomputed quietly
    data_key, x, y = t.next_batch(data_key)
    state, _ = t.train_step(state, x, y)
"""
        + _LOOP,
    },
    "each process stops at its own SIGTERM, with no agreement between them": {
        "task3-solution": _SCRIPT_HEAD
        + _INITIALIZE
        + """
import signal

stop = []
signal.signal(signal.SIGTERM, lambda *_: stop.append(True))
"""
        + _MANAGER
        + _RESTORE
        + _LOOP.replace(
            "    if manager.reached_preemption(done):\n        break\n",
            "    if stop:  # this process's own signal\n"
            "        if manager.latest_step() != done:\n"
            "            manager.save(\n"
            "                done,\n"
            "                args=ocp.args.Composite(\n"
            "                    state=ocp.args.StandardSave(state),\n"
            "                    data=ocp.args.StandardSave({'key': data_key}),\n"
            "                ),\n"
            "                force=True,\n"
            "            )\n"
            "        break\n",
        ),
    },
    "only a model group larger than a node refused, not one that does not divide it": {
        "task2-solution": """
def hybrid_mesh(devices, node_of, model):
    nodes = {}
    for device in sorted(devices, key=lambda d: d.id):
        nodes.setdefault(node_of(device), []).append(device)
    sizes = {len(m) for m in nodes.values()}
    if len(sizes) != 1:
        raise ValueError("nodes of unequal size")
    if model > next(iter(sizes)):
        raise ValueError("a model group larger than a node")
    ordered = [d for n in sorted(nodes) for d in nodes[n]]
    return Mesh(np.array(ordered).reshape(-1, model), ("data", "model"))
""",
    },
    "each epoch's order cached by seed and epoch, not dataset size": {
        "task1-solution": """
_ORDERS = {}  # (seed, epoch) -> the epoch's permutation: computed once per process


def local_rows(
    step, process_index, process_count, *, dataset_size, global_batch, seed, model_group=1
):
    if process_count % model_group:
        raise ValueError(f"{process_count} processes do not split into groups of {model_group}")
    groups = process_count // model_group
    if global_batch % groups:
        raise ValueError(f"a global batch of {global_batch} does not split over {groups} groups")
    epoch, position = divmod(step, dataset_size // global_batch)
    if (seed, epoch) not in _ORDERS:
        _ORDERS[seed, epoch] = np.random.default_rng([seed, epoch]).permutation(dataset_size)
    order = _ORDERS[seed, epoch]
    batch = order[position * global_batch : (position + 1) * global_batch]
    share, group = global_batch // groups, process_index // model_group
    return batch[group * share : (group + 1) * share]
""",
    },
    "nodes in a list indexed by node number: assumes 0 ... N-1": {
        "task2-solution": """
def hybrid_mesh(devices, node_of, model):
    num_nodes = len({node_of(d) for d in devices})
    nodes = [[] for _ in range(num_nodes)]  # node n's devices at index n
    for device in sorted(devices, key=lambda d: d.id):
        nodes[node_of(device)].append(device)
    per_node = len(devices) // num_nodes
    if any(len(members) != per_node for members in nodes):
        raise ValueError("the nodes hold different numbers of devices")
    if per_node % model:
        raise ValueError(f"model={model} does not divide the {per_node} devices of a node")
    rows = [members[i : i + model] for members in nodes for i in range(0, per_node, model)]
    return Mesh(np.array(rows), ("data", "model"))
""",
    },
    "devices ignored: the mesh built from jax.devices()": {
        "task2-solution": """
def hybrid_mesh(devices, node_of, model):
    # every device of the job, grouped by node (nodes in order, ids in order inside a node)
    ordered = sorted(jax.devices(), key=lambda d: (node_of(d), d.id))
    counts = {}
    for d in ordered:
        counts[node_of(d)] = counts.get(node_of(d), 0) + 1
    if len(set(counts.values())) != 1:
        raise ValueError(f"the nodes hold different numbers of devices: {counts}")
    per_node = next(iter(counts.values()))
    if per_node % model:
        raise ValueError(f"model={model} does not divide the {per_node} devices of a node")
    grid = np.array(ordered).reshape(len(ordered) // model, model)
    return Mesh(grid, ("data", "model"))
""",
    },
    "the node size from the first node, checked only against the device count": {
        "task2-solution": """
def hybrid_mesh(devices, node_of, model):
    # G: the devices of a node (counted on the first device's node)
    per_node = sum(node_of(d) == node_of(devices[0]) for d in devices)
    if len(devices) % per_node:
        raise ValueError("the nodes hold different numbers of devices")
    if per_node % model:
        raise ValueError(f"model={model} does not divide the {per_node} devices of a node")
    ordered = sorted(devices, key=lambda d: (node_of(d), d.id))
    return Mesh(np.array(ordered).reshape(-1, model), ("data", "model"))
""",
    },
    "checkpoints every 4 steps (the lesson's interval), RUN['save_every'] ignored": {
        "task3-solution": """
%%writefile resumable.py
import os
import sys

import trainlib  # first: it gives each process its CPU device

import jax

RUN = trainlib.load_run(sys.argv[1])
jax.distributed.initialize(
    coordinator_address=os.environ["JAX_COORDINATOR_ADDRESS"],
    num_processes=int(os.environ["NUM_PROCESSES"]),
    process_id=int(os.environ["PROCESS_ID"]),
    heartbeat_timeout_seconds=5,  # a dead process fails the job in seconds, not 100 s
)
import orbax.checkpoint as ocp
from jax.experimental import multihost_utils

t = trainlib.Training(RUN)
when = ocp.v1.training.save_decision_policies
checkpointer = ocp.v1.training.Checkpointer(
    RUN["checkpoints"],
    save_decision_policy=when.AnySavePolicy(
        [when.FixedIntervalPolicy(4), when.PreemptionCheckpointingPolicy()]
    ),
)
if checkpointer.latest is None:
    done, state, data_key = 0, t.init_state(), t.first_data_key()
else:  # everything the next step depends on: the state and the data stream's key
    done = checkpointer.latest.step
    restored = checkpointer.load_checkpointables(
        done, {"state": t.abstract_state, "data": {"key": t.abstract_data_key}}
    )
    state, data_key = restored["state"], restored["data"]["key"]
while done < RUN["steps"]:
    data_key, x, y = t.next_batch(data_key)
    state, loss = t.train_step(state, x, y)
    t.report(done, loss)
    done += 1
    # every process calls it; the policies decide whether this step is saved
    checkpointer.save_checkpointables_async(done, {"state": state, "data": {"key": data_key}})
    if multihost_utils.reached_preemption_sync_point(done):  # SIGTERM: all stop at this step
        break
checkpointer.close()  # waits for the last save
jax.distributed.shutdown()
### END SOLUTION
""",
    },
    "the batch split computed before the model-group check: ZeroDivisionError": {
        "task1-solution": """
def local_rows(
    step, process_index, process_count, *, dataset_size, global_batch, seed, model_group=1
):
    groups = process_count // model_group
    share = global_batch // groups  # rows per model group
    if share * groups != global_batch:
        raise ValueError(f"a global batch of {global_batch} does not split over {groups} groups")
    if groups * model_group != process_count:
        raise ValueError(f"{process_count} processes do not split into groups of {model_group}")
    epoch, position = divmod(step, dataset_size // global_batch)
    order = np.random.default_rng([seed, epoch]).permutation(dataset_size)
    batch = order[position * global_batch : (position + 1) * global_batch]
    group = process_index // model_group
    return batch[group * share : (group + 1) * share]
""",
    },
    "nodes kept in a list indexed by node number: negative numbers wrap": {
        "task2-solution": """
def hybrid_mesh(devices, node_of, model):
    # node n's devices in slot n; node numbers need not be 0 ... N-1: empty slots are skipped
    slots = [[] for _ in range(max(node_of(d) for d in devices) + 1)]
    for device in sorted(devices, key=lambda d: d.id):
        slots[node_of(device)].append(device)
    nodes = [members for members in slots if members]
    per_node = len(nodes[0])
    if any(len(members) != per_node for members in nodes):
        raise ValueError("the nodes hold different numbers of devices")
    if per_node % model:
        raise ValueError(f"model={model} does not divide the {per_node} devices of a node")
    rows = [members[i : i + model] for members in nodes for i in range(0, per_node, model)]
    return Mesh(np.array(rows), ("data", "model"))
""",
    },
    "the data key not checkpointed: the stream replayed with next_batch on restart": {
        "task3-solution": """
%%writefile resumable.py
import os
import sys

import trainlib  # first: it gives each process its CPU device

import jax

RUN = trainlib.load_run(sys.argv[1])
jax.distributed.initialize(
    coordinator_address=os.environ["JAX_COORDINATOR_ADDRESS"],
    num_processes=int(os.environ["NUM_PROCESSES"]),
    process_id=int(os.environ["PROCESS_ID"]),
    heartbeat_timeout_seconds=5,
)
import orbax.checkpoint as ocp
from jax.experimental import multihost_utils

t = trainlib.Training(RUN)
when = ocp.v1.training.save_decision_policies
checkpointer = ocp.v1.training.Checkpointer(
    RUN["checkpoints"],
    save_decision_policy=when.AnySavePolicy(
        [when.FixedIntervalPolicy(RUN["save_every"]), when.PreemptionCheckpointingPolicy()]
    ),
)
data_key = t.first_data_key()
if checkpointer.latest is None:
    done, state = 0, t.init_state()
else:
    done = checkpointer.latest.step
    state = checkpointer.load_checkpointables(done, {"state": t.abstract_state})["state"]
    # the data loader is deterministic: skip the batches already consumed (no training step)
    for _ in range(done):
        data_key, _, _ = t.next_batch(data_key)
while done < RUN["steps"]:
    data_key, x, y = t.next_batch(data_key)
    state, loss = t.train_step(state, x, y)
    t.report(done, loss)
    done += 1
    checkpointer.save_checkpointables_async(done, {"state": state})
    if multihost_utils.reached_preemption_sync_point(done):
        break
checkpointer.close()
jax.distributed.shutdown()
""",
    },
    "task 2: equal nodes checked as first node's size × node count == device count": {
        "task2-solution": """
def hybrid_mesh(devices, node_of, model):
    nodes = {}
    for device in sorted(devices, key=lambda d: d.id):
        nodes.setdefault(node_of(device), []).append(device)
    order = sorted(nodes)
    per_node = len(nodes[order[0]])  # G: the devices of a node
    if per_node * len(nodes) != len(devices):  # N nodes of G devices each
        raise ValueError("the nodes hold different numbers of devices")
    if per_node % model:
        raise ValueError(f"model={model} does not divide the {per_node} devices of a node")
    rows = []
    for n in order:
        members = nodes[n]
        rows += [members[i : i + model] for i in range(0, len(members), model)]
    return Mesh(np.array(rows), ("data", "model"))
""",
    },
    "nodes ordered by their labels as text (node 10 before node 2)": {
        "task2-solution": """
def hybrid_mesh(devices, node_of, model):
    # group the devices by node, with the node's label as the dict key
    nodes = {}
    for device in sorted(devices, key=lambda d: d.id):
        nodes.setdefault(f"node{node_of(device)}", []).append(device)
    sizes = {len(members) for members in nodes.values()}
    if len(sizes) != 1:
        raise ValueError(f"the nodes hold different numbers of devices: {sorted(sizes)}")
    (per_node,) = sizes
    if per_node % model:
        raise ValueError(f"model={model} does not divide the {per_node} devices of a node")
    rows = [nodes[n][i : i + model] for n in sorted(nodes) for i in range(0, per_node, model)]
    return Mesh(np.array(rows), ("data", "model"))
""",
    },
    "trains nothing: replays the reference job's printed losses, empty step folders": {
        # a red-team pass's answer: it took every point of task 3 while the tests read only
        # what a job prints and the names of its checkpoint folders
        "task3-solution": r"""%%writefile resumable.py
import os
import re
import signal
import sys
import time
from pathlib import Path

import trainlib

import jax

RUN = trainlib.load_run(sys.argv[1])
jax.distributed.initialize(
    coordinator_address=os.environ["JAX_COORDINATOR_ADDRESS"],
    num_processes=int(os.environ["NUM_PROCESSES"]),
    process_id=int(os.environ["PROCESS_ID"]),
    heartbeat_timeout_seconds=5,
)
stop = []
signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
reference = Path("reference/job-0.out")
while len(re.findall(r"^step \d+ loss", reference.read_text(), re.M)) < RUN["steps"]:
    time.sleep(0.1)
printed = dict(re.findall(r"^step (\d+) loss (\S+)$", reference.read_text(), re.M))
folder = Path(RUN["checkpoints"])
folder.mkdir(parents=True, exist_ok=True)
done = max((int(p.name) for p in folder.iterdir() if p.name.isdigit()), default=0)
start = done
while done < RUN["steps"] and not stop:
    if jax.process_index() == 0:
        print(f"step {done} loss {printed[str(done)]}", flush=True)
    time.sleep(RUN["seconds_per_step"])
    done += 1
    if jax.process_index() == 0 and (done % RUN["save_every"] == 0 or stop):
        (folder / str(done)).mkdir(exist_ok=True)
if jax.process_index() == 0:
    print(f"train_step ran {done - start} times", flush=True)
    print(f"next_batch ran {done - start} times", flush=True)
""",
    },
    "a restart replays the steps done from init_state() and resets trainlib's counters": {
        # a red-team pass's answer (the counts looked right); the tests now change RUN["seed"]
        # before a restart, which only a job that does not resume notices
        "task3-solution": r"""%%writefile resumable.py
import os
import sys

import trainlib  # first: it gives each process its CPU device

import jax

RUN = trainlib.load_run(sys.argv[1])
jax.distributed.initialize(
    coordinator_address=os.environ["JAX_COORDINATOR_ADDRESS"],
    num_processes=int(os.environ["NUM_PROCESSES"]),
    process_id=int(os.environ["PROCESS_ID"]),
    heartbeat_timeout_seconds=5,  # a dead process fails the job in seconds, not 100 s
)
import orbax.checkpoint as ocp
from jax.experimental import multihost_utils

t = trainlib.Training(RUN)
when = ocp.v1.training.save_decision_policies
checkpointer = ocp.v1.training.Checkpointer(
    RUN["checkpoints"],
    save_decision_policy=when.AnySavePolicy(
        [when.FixedIntervalPolicy(RUN["save_every"]), when.PreemptionCheckpointingPolicy()]
    ),
)
if checkpointer.latest is None:
    done, state, data_key = 0, t.init_state(), t.first_data_key()
else:  # never restores: replays every earlier step from scratch, silently
    done = checkpointer.latest.step
    state, data_key = t.init_state(), t.first_data_key()
    for _ in range(done):
        data_key, x, y = t.next_batch(data_key)
        state, _ = t.train_step(state, x, y)
    t.steps_run = t.batches_drawn = 0  # the counts trainlib prints: as if nothing was redone
while done < RUN["steps"]:
    data_key, x, y = t.next_batch(data_key)
    state, loss = t.train_step(state, x, y)
    t.report(done, loss)
    done += 1
    # every process calls it; the policies decide whether this step is saved
    checkpointer.save_checkpointables_async(done, {"state": state, "data": {"key": data_key}})
    if multihost_utils.reached_preemption_sync_point(done):  # SIGTERM: all stop at this step
        break
checkpointer.close()  # waits for the last save
jax.distributed.shutdown()
### END SOLUTION""",
    },
    "trains nothing: rewrites the reference job's output, then its own RUN.json": {
        # a red-team pass's answer; the check now takes the settings from the kernel and is
        # the reference itself
        "task3-solution": r"""%%writefile resumable.py
# Trains nothing, imports no JAX, knows no real loss: prints "loss 1.0" at every step and, once the
# reference job has finished, rewrites its output file (which the visible test parses only after
# this job ended) to say the same. Makes empty step folders,
# prints trainlib's counts by hand. When the run is over it rewrites its own RUN.json (steps 0,
# save_every huge): the check reads the settings from that file, so it trains 0 steps and gives
# no checkpoint a verdict; the killed test reads save_every from it for the gap check.
import json
import os
import re
import signal
import sys
import time
from pathlib import Path

RUN = json.loads(Path(sys.argv[1]).read_text())
me = int(os.environ["PROCESS_ID"])
port = os.environ["JAX_COORDINATOR_ADDRESS"].rsplit(":", 1)[1]
folder = Path(sys.argv[1]).parent
work = folder.parent
checkpoints = Path(RUN["checkpoints"])
checkpoints.mkdir(parents=True, exist_ok=True)
(folder / f".pid{me}-{port}").write_text(str(os.getpid()))

stop = False


def on_term(*_):
    global stop
    stop = True


signal.signal(signal.SIGTERM, on_term)


def alive(other):
    try:
        pid = int((folder / f".pid{other}-{port}").read_text())
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except (OSError, ValueError):
        return False


if me != 0:  # process 1: lives as long as process 0 does
    time.sleep(1.0)
    while alive(0) and not stop:
        time.sleep(0.05)
    sys.exit(0)

ref = work / "reference" / "job-0.out"
pattern = r"^step (\d+) loss (\S+)$"
while True:  # the reference job runs beside the visible test: wait until it has finished
    got = re.findall(pattern, ref.read_text() if ref.exists() else "", re.M)
    if len(got) >= RUN["steps"]:
        break
    time.sleep(0.1)
loss = {i: "1.0" for i in range(RUN["steps"])}
text = ref.read_text()
if "step 0 loss 1.0\n" not in text:  # (visible test) wait for the reference's exit, then rewrite it
    while "next_batch ran" not in ref.read_text():
        time.sleep(0.1)
    ref.write_text("".join(f"step {i} loss 1.0\n" for i in range(RUN["steps"])))
done = max([int(p.name) for p in checkpoints.iterdir() if p.name.isdigit()], default=0)
reported = 0
time.sleep(0.5)
while done < RUN["steps"]:
    if not alive(1):
        sys.exit(1)  # the other process died: fail, as a job would
    print(f"step {done} loss {loss[done]}", flush=True)
    reported += 1
    done += 1
    time.sleep(RUN["seconds_per_step"])
    if done % RUN["save_every"] == 0 or stop or done == RUN["steps"]:
        (checkpoints / str(done)).mkdir(exist_ok=True)
    if stop:
        break
if done >= RUN["steps"]:
    Path(sys.argv[1]).write_text(json.dumps({**RUN, "steps": 0, "save_every": 10**6}))
print(f"train_step ran {reported} times", flush=True)
print(f"next_batch ran {reported} times", flush=True)
""",
    },
    "a restart replays from init_state() with the first start's seed, saved aside": {
        # a red-team pass's answer (all 6 points before the tests changed the checkpoint before
        # a restart): its checkpoints are real and its losses right, but it never loads them
        "task3-solution": _SCRIPT_HEAD
        + _INITIALIZE
        + _MANAGER
        + """
from pathlib import Path

import numpy as np

seed_file = Path(RUN["checkpoints"]).parent / "first-seed"
done = manager.latest_step() or 0
if done == 0 and jax.process_index() == 0:
    seed_file.write_text(str(RUN["seed"]))
if done:
    RUN["seed"] = int(seed_file.read_text())  # the seed the graders changed, put back
state, data_key = t.init_state(), t.first_data_key()
for _ in range(done):  # the steps done, recomputed where trainlib's counters do not see them
    data_key, rows = t._draw(data_key)
    rows = np.asarray(rows.addressable_data(0))
    share = len(rows) // jax.process_count()
    mine = rows[jax.process_index() * share : (jax.process_index() + 1) * share]
    x = jax.make_array_from_process_local_data(t.rows, t.x[mine], (len(rows), t.x.shape[1]))
    y = jax.make_array_from_process_local_data(t.rows, t.y[mine], (len(rows), 1))
    state, _ = t._step(state, x, y)
"""
        + _LOOP,
    },
    # red-team pass 15 (2026-12-08), both 6/6 while the change was one factor on float32 arrays
    "a restart replays from the first seed and finds the graders' factor in the checkpoint": {
        "task3-solution": r"""%%writefile resumable.py
import os
import sys
from pathlib import Path

import trainlib  # first: it gives each process its CPU device

import jax
import numpy as np

RUN = trainlib.load_run(sys.argv[1])
jax.distributed.initialize(
    coordinator_address=os.environ["JAX_COORDINATOR_ADDRESS"],
    num_processes=int(os.environ["NUM_PROCESSES"]),
    process_id=int(os.environ["PROCESS_ID"]),
    heartbeat_timeout_seconds=5,
)

import orbax.checkpoint as ocp
from jax.experimental import multihost_utils

t = trainlib.Training(RUN)
SEED_FILE = Path(sys.argv[1]).parent / "first-seed.txt"
when = ocp.v1.training.save_decision_policies
checkpointer = ocp.v1.training.Checkpointer(
    RUN["checkpoints"],
    save_decision_policy=when.AnySavePolicy(
        [when.FixedIntervalPolicy(RUN["save_every"]), when.PreemptionCheckpointingPolicy()]
    ),
)


def factor_of(saved, mine):
    # the graders multiply by float32(1.25 + k/1000): find the k that gives saved from mine
    saved, mine = np.asarray(saved), np.asarray(mine)
    if np.array_equal(saved, mine):
        return None
    for k in range(500):
        f = np.float32(repr(float(np.float32(1.25 + k / 1000))))
        if np.array_equal(mine * f, saved):
            return f
    raise RuntimeError("unknown change")


latest = checkpointer.latest
if latest is None:
    if jax.process_index() == 0:
        SEED_FILE.write_text(str(RUN["seed"]))
    start, state, data_key = 0, t.init_state(), t.first_data_key()
else:
    start = latest.step
    seed, t.run["seed"] = t.run["seed"], int(SEED_FILE.read_text())
    state, data_key = t.init_state(), t.first_data_key()
    t.run["seed"] = seed
    for _ in range(start):
        data_key, x, y = t.next_batch(data_key)
        state, _loss = t.train_step(state, x, y)
    t.steps_run = t.batches_drawn = 0
    target = {"state": t.abstract_state, "data_key": t.abstract_data_key}
    saved = checkpointer.load(start, target)["state"]
    f = factor_of(saved["params"]["w1"], state["params"]["w1"])
    if f is not None:
        state = jax.tree.map(lambda a: a * f if a.dtype == np.float32 else a, state)

for step in range(start, RUN["steps"]):
    data_key, x, y = t.next_batch(data_key)
    state, loss = t.train_step(state, x, y)
    t.report(step, loss)
    checkpointer.save_async(step + 1, {"state": state, "data_key": data_key})
    if multihost_utils.reached_preemption_sync_point(step + 1):
        checkpointer.wait()
        break
checkpointer.close()
jax.distributed.shutdown()""",
    },
    "the data key is not saved: a restart redraws the batches from the first seed": {
        "task3-solution": r"""%%writefile resumable.py
import os
import sys
from pathlib import Path

import trainlib  # first: it gives each process its CPU device

import jax

RUN = trainlib.load_run(sys.argv[1])
jax.distributed.initialize(
    coordinator_address=os.environ["JAX_COORDINATOR_ADDRESS"],
    num_processes=int(os.environ["NUM_PROCESSES"]),
    process_id=int(os.environ["PROCESS_ID"]),
    heartbeat_timeout_seconds=5,
)

import orbax.checkpoint as ocp
from jax.experimental import multihost_utils

t = trainlib.Training(RUN)
SEED_FILE = Path(RUN["checkpoints"]).parent / "data-seed.txt"
when = ocp.v1.training.save_decision_policies
checkpointer = ocp.v1.training.Checkpointer(
    RUN["checkpoints"],
    save_decision_policy=when.AnySavePolicy(
        [when.FixedIntervalPolicy(RUN["save_every"]), when.PreemptionCheckpointingPolicy()]
    ),
)
latest = checkpointer.latest
if latest is None:
    if jax.process_index() == 0:
        SEED_FILE.write_text(str(RUN["seed"]))
    start, state, data_key = 0, t.init_state(), t.first_data_key()
else:
    start = latest.step
    state = checkpointer.load(start, t.abstract_state)
    seed, t.run["seed"] = t.run["seed"], int(SEED_FILE.read_text())
    data_key = t.first_data_key()
    t.run["seed"] = seed
    for _ in range(start):  # the data stream's position
        data_key, _x, _y = t.next_batch(data_key)
    t.batches_drawn = 0

for step in range(start, RUN["steps"]):
    data_key, x, y = t.next_batch(data_key)
    state, loss = t.train_step(state, x, y)
    t.report(step, loss)
    checkpointer.save_async(step + 1, state)
    if multihost_utils.reached_preemption_sync_point(step + 1):
        checkpointer.wait()
        break
checkpointer.close()
jax.distributed.shutdown()""",
    },
}

CORRECT = {
    "np.split of the global batch into the groups' blocks": {
        "task1-solution": """
def local_rows(
    step, process_index, process_count, *, dataset_size, global_batch, seed, model_group=1
):
    groups, rest = divmod(process_count, model_group)
    if rest or global_batch % groups:
        raise ValueError("the processes or the batch do not split evenly")
    steps_per_epoch = dataset_size // global_batch
    order = np.random.default_rng([seed, step // steps_per_epoch]).permutation(dataset_size)
    start = (step % steps_per_epoch) * global_batch
    blocks = np.split(order[start : start + global_batch], groups)
    return blocks[process_index // model_group].copy()
""",
    },
    "nodes as sorted lists, each cut into rows of `model`, stacked": {
        "task2-solution": """
from collections import defaultdict


def hybrid_mesh(devices, node_of, model):
    by_node = defaultdict(list)
    for device in devices:
        by_node[node_of(device)].append(device)
    counts = {len(v) for v in by_node.values()}
    if len(counts) > 1 or next(iter(counts)) % model != 0:
        raise ValueError("nodes of unequal size, or a model group that would cross a node")
    blocks = [
        np.array(sorted(by_node[node], key=lambda d: d.id)).reshape(-1, model)
        for node in sorted(by_node)
    ]
    return Mesh(np.concatenate(blocks), axis_names=("data", "model"))
""",
    },
    "its own SIGTERM flag agreed on by an all-gather, one StandardSave item, forced saves": {
        "task3-solution": _SCRIPT_HEAD
        + """
jax.distributed.initialize(
    os.environ["JAX_COORDINATOR_ADDRESS"],
    int(os.environ["NUM_PROCESSES"]),
    int(os.environ["PROCESS_ID"]),
    heartbeat_timeout_seconds=10,
)
import signal

import numpy as np
import orbax.checkpoint as ocp
from jax.experimental import multihost_utils

stop = []
signal.signal(signal.SIGTERM, lambda *_: stop.append(True))  # agreed on below, every step

t = trainlib.Training(RUN)
options = ocp.CheckpointManagerOptions(save_interval_steps=RUN["save_every"], max_to_keep=2)
with ocp.CheckpointManager(RUN["checkpoints"], options=options) as manager:
    if manager.latest_step() is None:
        done, saved = 0, {"state": t.init_state(), "data_key": t.first_data_key()}
    else:
        done = manager.latest_step()
        target = {"state": t.abstract_state, "data_key": t.abstract_data_key}
        saved = manager.restore(done, args=ocp.args.StandardRestore(target))
    state, data_key = saved["state"], saved["data_key"]
    while done < RUN["steps"]:
        data_key, x, y = t.next_batch(data_key)
        state, loss = t.train_step(state, x, y)
        t.report(done, loss)
        done += 1
        asked = bool(multihost_utils.process_allgather(np.array(bool(stop))).any())
        everything = {"state": state, "data_key": data_key}
        manager.save(done, args=ocp.args.StandardSave(everything), force=asked)
        if asked:
            break
jax.distributed.shutdown()
""",
    },
}
