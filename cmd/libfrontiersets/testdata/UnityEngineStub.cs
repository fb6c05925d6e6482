// UnityEngineStub: the few UnityEngine types the Unity package's
// UnityEngine-only files (Runtime/UnityVector.cs, the Samples~) use, so
// that lib_test.go compiles them with mono's mcs where no Unity is. Not
// Unity: declarations only.
using System;

namespace UnityEngine
{
    public struct Vector3 { public float x, y, z; }
    public class Object { }
    public class Component : Object { }
    public class Transform : Component { public Vector3 position; }
    public class Behaviour : Component { }
    public class MonoBehaviour : Behaviour { }
    public static class Time { public static float time; }
    public static class Application { public static string streamingAssetsPath = ""; }
    public class TooltipAttribute : Attribute { public TooltipAttribute(string s) { } }
}
