// InterestManagement: a component that runs the joint frontier over the
// players of a match and tells the game, every network tick, which player
// sends its update to which. Put it on the server's network manager, set
// Store Path to a store baked with
//   pvsbake bake terrain.raw --engine unity --engine-origin X,Z … -o terrain.pvs
// (X,Z: the Terrain's position) and fill Players with their transforms;
// OnSend is called for each update to send. Nothing is allocated per tick.
using System;
using Frontiersets;
using UnityEngine;

public class InterestManagement : MonoBehaviour
{
    [Tooltip("The store, baked with pvsbake bake --engine unity (a path under StreamingAssets or an absolute one).")]
    public string StorePath = "terrain.pvs";

    [Tooltip("The players' transforms, in the order the network layer numbers them.")]
    public Transform[] Players = new Transform[0];

    [Tooltip("Network ticks a second.")]
    public float TickRate = 20;

    // OnSend(from, to): player from's update goes to player to this tick.
    public Action<int, int> OnSend = delegate { };

    Store store;
    InterestManager manager;
    Vector3[] positions;
    float[] scratch;
    int[] sendsTo;
    float next;

    void OnEnable()
    {
        string path = System.IO.Path.IsPathRooted(StorePath) ? StorePath : System.IO.Path.Combine(Application.streamingAssetsPath, StorePath);
        store = new Store(path);
        Rebuild();
    }

    // Rebuild starts over with the current Players (after one joins or
    // leaves): the next tick decides every player afresh.
    public void Rebuild()
    {
        if (manager != null) manager.Dispose();
        manager = Players.Length > 0 ? new InterestManager(store, Players.Length) : null;
        positions = new Vector3[Players.Length];
        scratch = new float[2 * Players.Length];
        sendsTo = new int[Players.Length];
    }

    void FixedUpdate()
    {
        if (manager == null || Time.time < next) return;
        next = Time.time + 1 / TickRate;
        for (int i = 0; i < Players.Length; i++) positions[i] = Players[i].position;
        manager.Tick(positions, scratch);
        for (int i = 0; i < Players.Length; i++)
        {
            int n = manager.SendsTo(i, sendsTo);
            for (int k = 0; k < n; k++) OnSend(i, sendsTo[k]);
        }
    }

    void OnDisable()
    {
        if (manager != null) manager.Dispose();
        if (store != null) store.Dispose();
        manager = null;
        store = null;
    }
}
