"""A model whose forward never returns while torch.export traces it; eager and tracing work."""
import torch


class HangsInExport(torch.nn.Module):
    def forward(self, x):
        if torch.compiler.is_compiling():
            while True:  # what an export stuck in a data-dependent loop looks like from outside
                pass
        return x.relu() + 1


model = HangsInExport()
example_args = (torch.randn(2, 3),)
