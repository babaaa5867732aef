"""The agent under Agent Lightning's ``VERL``: ``algorithm.py`` wires it, ``config.py`` loads its config."""
