# SPDX-License-Identifier: MIT
"""The scripted loop of pydftracer's AI logging test, annotated with stallwatch.

3 epochs x 2 steps, each step: item read (data.item), collate
(data.preprocess.collate), transfer (device.transfer), compute with forward
and backward, a disabled all_reduce, the optimizer step through start/stop;
checkpoint init, restart and capture; epochs either as pipeline.epoch.iter or
as metadata marks. pydftracer logs 67 AI events for it.

usage: ai_loop.py DATA_DIR [--metadata] [--disable CAT]
"""

import argparse
import os

import numpy as np

import stallwatch
from stallwatch import ai

NUM_FILES = 2
EPOCHS = 3


class IOHandler:
    @ai.data.item
    def read(self, filename):
        return np.load(filename)

    def write(self, filename, a):
        with open(filename, "wb") as f:
            np.save(f, a)


@ai.dataloader.fetch
def read_data(data_dir, io):
    for i in range(NUM_FILES):
        yield io.read(f"{data_dir}/{i}-of-{NUM_FILES}.npy")


@ai.data.preprocess.derive(name="collate")
def collate(data):
    return data


@ai.device.transfer
def transfer(data):
    return data


@ai.compute.forward
def forward(data):
    return float(data.sum())


@ai.compute.backward
def backward():
    with ai.comm.all_reduce(enable=False):
        pass


@ai.compute
def compute(data):
    loss = forward(data)
    backward()
    return loss


class Checkpoint:
    @ai.checkpoint.init
    def __init__(self):
        self.state = {}

    @ai.checkpoint.capture
    def capture(self, state):
        return state

    @ai.checkpoint.restart
    def restart(self, state):
        return state


class Hook:
    def before_step(self):
        ai.compute.step.start()

    def after_step(self):
        ai.compute.step.stop()


def one_epoch(data_dir, io, hook):
    for step, data in ai.dataloader.fetch.iter(enumerate(read_data(data_dir, io))):
        hook.before_step()
        data = collate(data)
        data = transfer(data)
        compute(data)
        hook.after_step()
        ai.update(step=step, epoch=current_epoch)


current_epoch = 0


@ai.pipeline.train
def train(data_dir, metadata):
    global current_epoch
    io = IOHandler()
    os.makedirs(data_dir, exist_ok=True)
    for i in range(NUM_FILES):
        io.write(f"{data_dir}/{i}-of-{NUM_FILES}.npy", np.ones((64, 1), dtype=np.uint8))
    checkpoint = Checkpoint()
    checkpoint.restart({})
    hook = Hook()
    if metadata:
        for current_epoch in range(EPOCHS):
            ai.pipeline.epoch.start(metadata=True)
            one_epoch(data_dir, io, hook)
            ai.pipeline.epoch.stop(metadata=True)
    else:
        for current_epoch in ai.pipeline.epoch.iter(range(EPOCHS)):
            one_epoch(data_dir, io, hook)
    checkpoint.capture({})


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("data_dir")
    parser.add_argument("--metadata", action="store_true")
    parser.add_argument("--disable", choices=["all", "dataloader", "device", "compute", "comm",
                                              "ckpt"])
    args = parser.parse_args()
    targets = {"all": ai, "dataloader": ai.dataloader, "device": ai.device,
               "compute": ai.compute, "comm": ai.comm, "ckpt": ai.checkpoint}
    if args.disable:
        targets[args.disable].disable()
    train(args.data_dir, args.metadata)
    stallwatch.flush(2000)


if __name__ == "__main__":
    main()
