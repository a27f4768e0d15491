"""With return_dict=False the model returns a plain tuple, which the tracer accepts."""
import torch
from transformers import BertConfig, BertModel

config = BertConfig(vocab_size=100, hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
                    intermediate_size=32, return_dict=False)
model = BertModel(config).eval()
example_args = (torch.randint(0, 100, (2, 8)),)


def main():
    traced = torch.jit.trace(model, example_args)
    ids = torch.randint(0, 100, (3, 5))  # another batch size and length than the trace saw
    with torch.no_grad():
        expected = model(ids)
    got = traced(ids)
    assert isinstance(got, tuple)
    for g, e in zip(got, expected):
        torch.testing.assert_close(g, e)
    print("ok: traced model returns a tuple that matches eager on a new input shape")


if __name__ == "__main__":
    main()
