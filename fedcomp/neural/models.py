"""Models of the papers' experiments (all ``torch.nn.Module``).

* :class:`LogisticRegression` - a linear layer: FedDRO section 6 (Adult, fairness), ComFedL 5.1
  (MNIST, multi-class logistic regression), the two-backend equivalence test (no bias, one output:
  the simulator's ``KLDRO`` model x . a).
* :class:`SmallCNN` - the classifier of the AUC paper for Fashion-MNIST. The paper defers its
  architecture to an appendix that is not in our copy; we use the common two-convolution MNIST
  network (conv 5x5 -> ReLU -> max-pool, twice, then two linear layers) and say so in results.
* :class:`ConvNet4` - the 4-layer MAML network of FCSG 5.2 (and Finn et al. 2017): four blocks of
  3x3 convolution with 64 filters, batch normalisation, ReLU and 2x2 max-pooling, then a linear
  layer. Batch statistics are always those of the current batch (``track_running_stats=False``),
  the usual MAML practice (transductive BN), so the model has no buffers.
* :class:`ResNet20` - He et al. (2016), CIFAR variant: 3 stages of 3 basic blocks, 16/32/64
  channels, option A (zero-padded identity) shortcuts; 0.27 M parameters.
* :class:`AUCModel` - a scoring network plus the two scalars a, b of the AUC min-max loss (AUC
  paper eq. (1)): x = [w, a, b] as in the paper's section 3.1.
"""
from __future__ import annotations

from fedcomp.neural._core import require_torch

torch = require_torch()
nn = torch.nn
F = torch.nn.functional


class LogisticRegression(nn.Module):
    """x -> W x (+ b): logits of a (multinomial) logistic regression."""

    def __init__(self, in_features: int, out_features: int = 1, bias: bool = True):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features, bias=bias)
        nn.init.zeros_(self.linear.weight)
        if bias:
            nn.init.zeros_(self.linear.bias)

    def forward(self, inputs):
        return self.linear(inputs.reshape(inputs.shape[0], -1))


class SmallCNN(nn.Module):
    """Two 5x5 convolutions (channels c1, c2) and two linear layers, for 28x28 grey images."""

    def __init__(self, out_features: int = 1, c1: int = 20, c2: int = 50, hidden: int = 256):
        super().__init__()
        self.conv1 = nn.Conv2d(1, c1, 5)
        self.conv2 = nn.Conv2d(c1, c2, 5)
        self.fc1 = nn.Linear(c2 * 4 * 4, hidden)
        self.fc2 = nn.Linear(hidden, out_features)

    def forward(self, inputs):
        z = F.max_pool2d(F.relu(self.conv1(inputs)), 2)
        z = F.max_pool2d(F.relu(self.conv2(z)), 2)
        z = F.relu(self.fc1(z.flatten(1)))
        return self.fc2(z)


class ConvNet4(nn.Module):
    """Finn et al. (2017) Omniglot network: 4 x [conv3x3(64), BN, ReLU, maxpool 2], linear."""

    def __init__(self, n_way: int = 5, channels: int = 64, in_channels: int = 1,
                 image_size: int = 28):
        super().__init__()
        layers, c = [], in_channels
        for _ in range(4):
            layers += [nn.Conv2d(c, channels, 3, padding=1),
                       nn.BatchNorm2d(channels, track_running_stats=False), nn.ReLU(),
                       nn.MaxPool2d(2)]
            c = channels
        self.features = nn.Sequential(*layers)
        side = image_size
        for _ in range(4):
            side //= 2
        self.head = nn.Linear(channels * max(side, 1) ** 2, n_way)

    def forward(self, inputs):
        return self.head(self.features(inputs).flatten(1))


class _BasicBlock(nn.Module):
    def __init__(self, cin: int, cout: int, stride: int):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.pad = cout - cin
        self.stride = stride

    def forward(self, z):
        out = F.relu(self.bn1(self.conv1(z)))
        out = self.bn2(self.conv2(out))
        short = z
        if self.stride != 1 or self.pad:
            # option A of He et al.: subsample and zero-pad the channels (no parameters)
            short = z[:, :, ::self.stride, ::self.stride]
            short = F.pad(short, (0, 0, 0, 0, self.pad // 2, self.pad - self.pad // 2))
        return F.relu(out + short)


class ResNet20(nn.Module):
    """ResNet20 for 32x32 colour images (He et al. 2016, section 4.2)."""

    def __init__(self, num_classes: int = 10, width: int = 16):
        super().__init__()
        w = width
        self.conv = nn.Conv2d(3, w, 3, 1, 1, bias=False)
        self.bn = nn.BatchNorm2d(w)
        blocks, cin = [], w
        for cout, stride in ((w, 1), (2 * w, 2), (4 * w, 2)):
            for i in range(3):
                blocks.append(_BasicBlock(cin, cout, stride if i == 0 else 1))
                cin = cout
        self.blocks = nn.Sequential(*blocks)
        self.fc = nn.Linear(4 * w, num_classes)
        for m in self.modules():
            if isinstance(m, (nn.Conv2d, nn.Linear)):
                nn.init.kaiming_normal_(m.weight)

    def forward(self, inputs):
        z = F.relu(self.bn(self.conv(inputs)))
        z = self.blocks(z)
        z = F.adaptive_avg_pool2d(z, 1).flatten(1)
        return self.fc(z)


class AUCModel(nn.Module):
    """A scoring network with the AUC loss' scalars a and b (AUC paper (1)): x = [w, a, b].

    forward returns the network's logit (B, 1); the score h(w; a) is its sigmoid. The scalars
    live in a child module ``ab`` so that the flat vector is ordered [w, a, b] as in the paper
    (and the simulator): a module's own parameters would come before its children's.
    """

    def __init__(self, net: nn.Module):
        super().__init__()
        self.net = net
        self.ab = nn.Module()
        self.ab.a = nn.Parameter(torch.zeros(()))
        self.ab.b = nn.Parameter(torch.zeros(()))

    def forward(self, inputs):
        return self.net(inputs)
