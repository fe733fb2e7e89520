"""cudal1.train — the training engine `cudal1 train` runs as a child:

    python3 -m cudal1.train --config OUT/train-config.json

CUDA-L1's three stages (SFT, self-supervised rounds, contrastive GRPO) on TRL (trl_engine, the
default) or stage 3 on verl (verl_engine), with the rewards, prompts and records from `cudal1
serve`. The interface with the C orchestrator (the config's keys, the CL1TRAIN event lines on
stdout, OUT/state.json, the exit statuses) is described in docs/train-engine.md. Nothing is
imported here: `import cudal1.train` stays cheap and works without torch."""
