"""A model whose own code refuses export with an error no entry explains."""
import torch


class Refuses(torch.nn.Module):
    def forward(self, x):
        if torch.compiler.is_compiling():
            raise RuntimeError("the frobnicator cannot be exported in quantum mode 7")
        return x - 1


model = Refuses()
example_args = (torch.randn(4, 5),)
