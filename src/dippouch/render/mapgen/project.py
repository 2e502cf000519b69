"""Lambert azimuthal equal-area projection on a sphere, in kilometres.

Equal-area so that province areas (and the mapcheck's "too small to click") compare fairly across a board;
centred on the board so the shapes players know are not skewed. Written out here (a few lines) rather than
taken from a projection library, which the build does not otherwise need.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

R_KM = 6371.0088


@dataclass(frozen=True, slots=True)
class Laea:
    lon0: float
    lat0: float

    def forward(self, lon: npt.ArrayLike, lat: npt.ArrayLike) -> tuple[np.ndarray, np.ndarray]:
        lam = np.radians(np.asarray(lon, dtype=float) - self.lon0)
        phi = np.radians(np.asarray(lat, dtype=float))
        phi0 = math.radians(self.lat0)
        cosc = math.sin(phi0) * np.sin(phi) + math.cos(phi0) * np.cos(phi) * np.cos(lam)
        k = np.sqrt(2.0 / (1.0 + cosc))
        x = R_KM * k * np.cos(phi) * np.sin(lam)
        y = R_KM * k * (math.cos(phi0) * np.sin(phi) - math.sin(phi0) * np.cos(phi) * np.cos(lam))
        return x, y

    def point(self, lon: float, lat: float) -> tuple[float, float]:
        x, y = self.forward([lon], [lat])
        return float(x[0]), float(y[0])

    def inverse(self, x: float, y: float) -> tuple[float, float]:
        rho = math.hypot(x, y)
        if rho == 0:
            return self.lon0, self.lat0
        c = 2 * math.asin(min(1.0, rho / (2 * R_KM)))
        phi0 = math.radians(self.lat0)
        lat = math.asin(math.cos(c) * math.sin(phi0) + y * math.sin(c) * math.cos(phi0) / rho)
        lon = math.radians(self.lon0) + math.atan2(
            x * math.sin(c), rho * math.cos(phi0) * math.cos(c) - y * math.sin(phi0) * math.sin(c)
        )
        return math.degrees(lon), math.degrees(lat)
