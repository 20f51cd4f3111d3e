<#-- The bundled artifacts as license-maven-plugin (add-third-party) resolves them, one per line, tab-separated:
     groupId:artifactId:version, the licence names of its effective POM joined by " | ", its name, its URL.
     Read by dist/licenses/CollectLicenses.java. -->
<#list dependencyMap as e>
<#assign p = e.getKey()/>
${p.groupId}:${p.artifactId}:${p.version}	<#list e.getValue() as l>${l}<#sep> | </#sep></#list>	${p.name!p.artifactId}	${p.url!"-"}
</#list>
