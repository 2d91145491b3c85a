"""Trained policies as players: the policy protocol and the linear policy
(:mod:`.base`), a numpy network (:mod:`.mlp`), an ONNX network (:mod:`.onnx`), a
stable-baselines3 model read without unpickling (:mod:`.sb3`), the safe ``.npz`` reader
(:mod:`.files`), a file loaded by what it is and seated as the ``policy:file=`` bot
(:mod:`.loading`), and a policy served over the bot protocol (:mod:`.host`)."""
