"""The start-up plumbing of one ``python -m aspen_rl.train`` run: inputs, simulator, policy, trainer..."""
