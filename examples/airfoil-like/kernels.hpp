// SPDX-License-Identifier: MIT
// The element kernels of the airfoil-like example, in the shape of OP2's Airfoil: a 2-D Euler
// solver on quadrilateral cells with scalar dissipation. The same text is compiled twice: as C++
// here (the serial reference of main.cpp) and, as a string, as OpenCL C by op::kernel. It is
// written in the part of C both languages share: double, sqrt and fabs, no macros inside.
#pragma once

#include <cmath>

namespace airfoil {

using std::fabs;
using std::sqrt;

// The gas and the scheme: gam the ratio of specific heats, cfl the time-step factor, eps the
// dissipation. OpenCL sees them as #defines (constants below), C++ as these.
constexpr double gam = 1.4, gm1 = 0.4, cfl = 0.9, eps = 0.05;
inline const char* const constants =
    "#define gam 1.4\n#define gm1 0.4\n#define cfl 0.9\n"
    "#define eps 0.05\n";

// Defines the functions in C++ and keeps their text for OpenCL C.
#define AIRFOIL_KERNELS(...) \
  __VA_ARGS__                \
  inline const char* const kernels = #__VA_ARGS__;

AIRFOIL_KERNELS(
    // q: density, x and y momentum, energy per unit volume.
    void save_soln(const double* q, double* qold) {
      for (int n = 0; n < 4; ++n) qold[n] = q[n];
    }

    // The local time step: the sum over the four sides of the speeds across them, times their
    // lengths, over cfl. x holds the four nodes' coordinates, counter-clockwise.
    void adt_calc(const double x[8], const double* q, double* adt) {
      const double ri = 1.0 / q[0], u = ri * q[1], v = ri * q[2];
      const double c = sqrt(gam * gm1 * (ri * q[3] - 0.5 * (u * u + v * v)));
      double sum = 0.0;
      for (int k = 0; k < 4; ++k) {
        const int next = (k + 1) % 4;
        const double dx = x[2 * next] - x[2 * k], dy = x[2 * next + 1] - x[2 * k + 1];
        sum += fabs(u * dy - v * dx) + c * sqrt(dx * dx + dy * dy);
      }
      *adt = sum / cfl;
    }

    // The flux across an interior edge, from the first cell into the second.
    void res_calc(const double* x1, const double* x2, const double* q1, const double* q2,
                  const double* adt1, const double* adt2, double* res1, double* res2) {
      const double dx = x1[0] - x2[0], dy = x1[1] - x2[1];
      const double r1 = 1.0 / q1[0], r2 = 1.0 / q2[0];
      const double p1 = gm1 * (q1[3] - 0.5 * r1 * (q1[1] * q1[1] + q1[2] * q1[2]));
      const double p2 = gm1 * (q2[3] - 0.5 * r2 * (q2[1] * q2[1] + q2[2] * q2[2]));
      const double vol1 = r1 * (q1[1] * dy - q1[2] * dx), vol2 = r2 * (q2[1] * dy - q2[2] * dx);
      const double mu = 0.5 * (adt1[0] + adt2[0]) * eps;
      double f[4];
      f[0] = 0.5 * (vol1 * q1[0] + vol2 * q2[0]) + mu * (q1[0] - q2[0]);
      f[1] = 0.5 * (vol1 * q1[1] + p1 * dy + vol2 * q2[1] + p2 * dy) + mu * (q1[1] - q2[1]);
      f[2] = 0.5 * (vol1 * q1[2] - p1 * dx + vol2 * q2[2] - p2 * dx) + mu * (q1[2] - q2[2]);
      f[3] = 0.5 * (vol1 * (q1[3] + p1) + vol2 * (q2[3] + p2)) + mu * (q1[3] - q2[3]);
      for (int n = 0; n < 4; ++n) {
        res1[n] += f[n];
        res2[n] -= f[n];
      }
    }

    // The flux across a boundary edge out of its cell: pressure only at a wall (bound 1), the
    // flux against the free stream qinf elsewhere.
    void bres_calc(const double* x1, const double* x2, const double* q1, const double* adt1,
                   double* res1, const int* bound, const double* qinf) {
      const double dx = x1[0] - x2[0], dy = x1[1] - x2[1];
      const double r1 = 1.0 / q1[0];
      const double p1 = gm1 * (q1[3] - 0.5 * r1 * (q1[1] * q1[1] + q1[2] * q1[2]));
      if (bound[0] == 1) {
        res1[1] += p1 * dy;
        res1[2] -= p1 * dx;
        return;
      }
      const double r2 = 1.0 / qinf[0];
      const double p2 = gm1 * (qinf[3] - 0.5 * r2 * (qinf[1] * qinf[1] + qinf[2] * qinf[2]));
      const double vol1 = r1 * (q1[1] * dy - q1[2] * dx);
      const double vol2 = r2 * (qinf[1] * dy - qinf[2] * dx);
      const double mu = adt1[0] * eps;
      res1[0] += 0.5 * (vol1 * q1[0] + vol2 * qinf[0]) + mu * (q1[0] - qinf[0]);
      res1[1] += 0.5 * (vol1 * q1[1] + p1 * dy + vol2 * qinf[1] + p2 * dy) + mu * (q1[1] - qinf[1]);
      res1[2] += 0.5 * (vol1 * q1[2] - p1 * dx + vol2 * qinf[2] - p2 * dx) + mu * (q1[2] - qinf[2]);
      res1[3] += 0.5 * (vol1 * (q1[3] + p1) + vol2 * (qinf[3] + p2)) + mu * (q1[3] - qinf[3]);
    }

    // The new state from the old one and the residual; the residual is cleared for the next
    // step and its squares summed into rms.
    void update(const double* qold, double* q, double* res, const double* adt, double* rms) {
      const double adti = 1.0 / adt[0];
      for (int n = 0; n < 4; ++n) {
        const double del = adti * res[n];
        q[n] = qold[n] - del;
        res[n] = 0.0;
        rms[0] += del * del;
      }
    })

#undef AIRFOIL_KERNELS

}  // namespace airfoil
