"""Code generation: ops.yaml + backward.yaml -> typed specs -> Jinja2 -> committed modules.

Needs PyYAML and Jinja2 (the ``dev`` extra); the generated modules do not.
"""
