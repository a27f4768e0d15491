"""A model that allocates without end while torch.jit.trace records it; export works."""
import torch


class EatsMemory(torch.nn.Module):
    def forward(self, x):
        if torch.jit.is_tracing():
            hoard = []
            for _ in range(400):  # 128 MB a step, written so the pages are really resident
                hoard.append(torch.ones(2**25))
        return x + 1


model = EatsMemory()
example_args = (torch.randn(2, 3),)
