// Vector3 overloads of the interest manager, for Unity only (compiled
// where UnityEngine is: the rest of the package builds without it).
#if UNITY_5_3_OR_NEWER
using UnityEngine;

namespace Frontiersets
{
    public static class InterestManagerUnity
    {
        // Tick with each player's transform position: its x and z.
        // scratch must hold 2·Players floats; it is reused, nothing is
        // allocated.
        public static TickResult Tick(this InterestManager m, Vector3[] positions, float[] scratch)
        {
            if (positions == null || positions.Length != m.Players)
                throw new System.ArgumentException("want one position for each of the " + m.Players + " players", "positions");
            for (int i = 0; i < positions.Length; i++)
            {
                scratch[2 * i] = positions[i].x;
                scratch[2 * i + 1] = positions[i].z;
            }
            return m.Tick(scratch);
        }
    }
}
#endif
