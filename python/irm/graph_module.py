"""The graph executor from Python (docs/graph.md): GraphModule over a
library exported from a build with the graph executor, with the method
names of TVM's graph_executor.GraphModule. Runs go through the graph
runner of runtime/ (runtime.Load gives it a graph library)."""


class GraphModule:
    """A graph-executor library, loaded: ``GraphModule(irm.runtime.load(path))``
    or ``GraphModule(path, num_threads=N)`` (irm.runtime.load's
    num_threads; docs/threads.md). Inputs are kept until the next run;
    outputs of the last run are returned as numpy arrays (irm tensors
    without numpy), or written into the arrays set_output_zero_copy gave.
    One GraphModule keeps its inputs between calls, so each Python thread
    running at once needs its own (over one loaded Module they share the
    library and run concurrently)."""

    def __init__(self, module, num_threads=None):
        from .runtime import Module, load
        if not isinstance(module, Module):
            module = load(module, num_threads=num_threads)
        elif num_threads is not None:
            raise TypeError("GraphModule: num_threads is for a path; a loaded Module keeps its thread count "
                            "(irm.runtime.load(path, num_threads=...))")
        if module.metadata.get("executor") != "graph":
            raise ValueError("GraphModule: %r is not a graph-executor library (executor %r); use its run()"
                             % (module.path, module.metadata.get("executor", "aot")))
        self.module = module
        self._names = [d["name"] for d in module.inputs]
        self._inputs = {}
        self._outputs = None
        self._bound = {}  # output index -> the caller's array (set_output_zero_copy)

    @property
    def num_threads(self):
        """The threads the library's kernels may use (Module.num_threads)."""
        return self.module.num_threads

    def get_num_inputs(self):
        """The number of inputs (the parameters are not inputs)."""
        return len(self._names)

    def get_num_outputs(self):
        return len(self.module.outputs)

    def get_input_index(self, name):
        """The index of the input named name; ValueError naming the inputs."""
        if name not in self._names:
            raise ValueError("GraphModule: no input named %r; the inputs are %s" % (name, self._names))
        return self._names.index(name)

    def get_input_info(self):
        """({name: shape}, {name: dtype}) of the inputs."""
        return ({d["name"]: tuple(d["shape"]) for d in self.module.inputs},
                {d["name"]: d["dtype"] for d in self.module.inputs})

    def _key(self, key):
        if isinstance(key, int) and not isinstance(key, bool):
            if not 0 <= key < len(self._names):
                raise IndexError("GraphModule: input %d out of range (%d inputs)" % (key, len(self._names)))
            return self._names[key]
        if isinstance(key, str):
            self.get_input_index(key)
            return key
        raise TypeError("GraphModule.set_input: key must be an input's name or index, got %s" % type(key).__name__)

    def set_input(self, key=None, value=None, **inputs):
        """Sets one input by name or index, and/or several by name."""
        if key is not None:
            self._inputs[self._key(key)] = value
        for name, v in inputs.items():
            self._inputs[self._key(name)] = v

    def set_input_zero_copy(self, key, value):
        """Sets one input by name or index to value without copying it: the
        array is kept, and each later run reads what it holds then."""
        self._inputs[self._key(key)] = value

    def set_output_zero_copy(self, index, value):
        """Later runs write output index into value (a numpy array or irm
        Tensor of the output's dtype and shape; numpy arrays C-contiguous
        and writeable), which get_output(index) then returns. Checked here:
        TypeError / ValueError naming the output, IndexError for index."""
        if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < len(self.module.outputs):
            raise IndexError("GraphModule.set_output_zero_copy: output %r out of range (%d outputs)"
                             % (index, len(self.module.outputs)))
        from .runtime import _out_tensor
        _out_tensor(value, self.module.outputs[index])
        self._bound[index] = value

    def run(self, **inputs):
        """Sets the given inputs (by name) and runs. TypeError names an
        input that was never set."""
        self.set_input(**inputs)
        missing = [n for n in self._names if n not in self._inputs]
        if missing:
            raise TypeError("GraphModule.run: input %r was never set" % missing[0])
        args = [self._inputs[n] for n in self._names]
        if not self._bound:
            out = self.module.run(*args)
            self._outputs = list(out) if isinstance(out, tuple) else [out]
            return
        outs = [self._bound[j] if j in self._bound else _empty(d) for j, d in enumerate(self.module.outputs)]
        self.module.run(*args, out=outs)
        self._outputs = outs

    def get_output(self, index):
        """Output index of the last run."""
        if self._outputs is None:
            raise RuntimeError("GraphModule.get_output: run() has not been called")
        if not 0 <= index < len(self._outputs):
            raise IndexError("GraphModule: output %d out of range (%d outputs)" % (index, len(self._outputs)))
        return self._outputs[index]

    def __repr__(self):
        return "irm.runtime.GraphModule(%r, mod_name=%r)" % (self.module.path, self.module.metadata["mod_name"])


def _empty(desc):
    """A new array for an output no set_output_zero_copy gave (needs numpy)."""
    import numpy
    return numpy.empty(desc["shape"], dtype=desc["dtype"])
