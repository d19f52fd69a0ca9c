package dev.countersign.contracts.catalogue;

/**
 * One parameter of an action kind.
 *
 * @param maxLength
 *            for TEXT and LINES, the longest value accepted (in characters, after trimming); ignored otherwise
 */
public record ParamSpec(String name, ParamType type, boolean required, int maxLength, String description) {

    public static ParamSpec required(String name, ParamType type, String description) {
        return new ParamSpec(name, type, true, 0, description);
    }

    public static ParamSpec optional(String name, ParamType type, String description) {
        return new ParamSpec(name, type, false, 0, description);
    }

    public static ParamSpec requiredText(String name, int maxLength, String description) {
        return new ParamSpec(name, ParamType.TEXT, true, maxLength, description);
    }

    public static ParamSpec requiredLines(String name, int maxLength, String description) {
        return new ParamSpec(name, ParamType.LINES, true, maxLength, description);
    }

    public static ParamSpec optionalLines(String name, int maxLength, String description) {
        return new ParamSpec(name, ParamType.LINES, false, maxLength, description);
    }

    public static ParamSpec optionalText(String name, int maxLength, String description) {
        return new ParamSpec(name, ParamType.TEXT, false, maxLength, description);
    }
}
